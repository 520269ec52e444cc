import NIOCore

/// A TLS handshake sent to the WebUI while it serves plain HTTP is dropped without an answer, as qbittorrent-nox
/// drops it (its parser waits for a request head that never comes; clients then retry over HTTPS or give up, as
/// qbittorrent-api does). Without this the HTTP parser would refuse the first byte and answer 400, which TLS clients
/// report as a protocol error. Looks at the connection's first byte only, then leaves the pipeline.
final class TLSHelloOnPlainPort: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// The TLS record type of a handshake.
    static let handshakeRecord: UInt8 = 0x16

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        guard let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) else {
            return context.fireChannelRead(data)  // nothing yet: wait for the first byte
        }
        if first == Self.handshakeRecord {
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(self, promise: nil)
    }
}
