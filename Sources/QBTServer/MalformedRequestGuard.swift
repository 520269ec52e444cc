import NIOCore
import NIOHTTP1

/// Answers a request the HTTP parser refuses (a NUL or control byte in the request line or a header, a bad chunk
/// size, conflicting lengths, an over-long line) with 400 and closes the connection, as qbittorrent-nox does.
/// Hummingbird answers such errors itself only after the first request of a connection; with WebSocket upgrades on,
/// a first request that does not parse was left unanswered with its connection open. Sits right after the request
/// decoder, so it sees the parser's error before anything else.
final class MalformedRequestGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias InboundOut = NIOAny
    typealias OutboundOut = HTTPServerResponsePart

    private var answered = false

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else { return context.fireErrorCaught(error) }
        guard !answered else { return }
        answered = true
        var headers = HTTPHeaders()
        headers.add(name: "Connection", value: "close")
        headers.add(name: "Content-Length", value: "0")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))),
                      promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
    }

    /// Puts a guard (and `others`) right after the channel's HTTP request decoder (nothing happens without one).
    static func install(in channel: any Channel, _ others: any ChannelHandler...) {
        let pipeline = channel.pipeline.syncOperations
        guard let decoder = try? pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self) else { return }
        try? pipeline.addHandlers([MalformedRequestGuard()] + others, position: .after(decoder))
    }
}
