import NIOCore

/// A TLS handshake sent to the WebUI while it serves plain HTTP is held as qbittorrent-nox holds it: its parser waits
/// for the end of a request head (`\r\n\r\n`), which a TLS client never sends, so the client times out (and
/// qbittorrent-api, for one, then tries HTTPS) and the connection goes at the first-request deadline. Bytes that do end
/// a head go to the HTTP parser, which refuses them with 400 as qbittorrent-nox does. Without this the parser refused
/// the first byte at once and answered 400, which TLS clients report as a protocol error. Looks at the connection's
/// first bytes only, then leaves the pipeline.
final class TLSHelloOnPlainPort: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// The TLS record type of a handshake.
    static let handshakeRecord: UInt8 = 0x16
    /// What is kept while waiting for a head's end: past it, the bytes go to the parser (which refuses them).
    static let limit = 64 * 1024

    private var held: ByteBuffer?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        if var kept = held {
            kept.writeBuffer(&buffer)
            held = kept
        } else {
            guard let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) else { return }
            guard first == Self.handshakeRecord else { return pass(buffer, context) }
            held = buffer
        }
        guard let kept = held else { return }
        let ended = kept.readableBytesView.firstRange(of: [13, 10, 13, 10]) != nil
        if ended || kept.readableBytes > Self.limit {
            held = nil
            pass(kept, context)
        }
    }

    private func pass(_ buffer: ByteBuffer, _ context: ChannelHandlerContext) {
        context.fireChannelRead(wrapInboundOut(buffer))
        context.pipeline.syncOperations.removeHandler(self, promise: nil)
    }
}
