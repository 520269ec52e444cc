import FileRegions
import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The request context of every qbtd route: Hummingbird's core plus the socket's two ends (and what a WebSocket
/// upgrade needs).
public struct QBTRequestContext: RequestContext, WebSocketRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    public let localAddress: SocketAddress?
    public let webSocket: WebSocketHandlerReference<Self>
    /// sendfile(2) for bodies of file bytes: nil over TLS.
    public let fileRegions: FileRegionOutlet?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        localAddress = source.channel.localAddress
        webSocket = .init()
        fileRegions = FileRegionOutlet.of(source.channel)
    }

    /// qBittorrent's request cap: 64 MiB plus 10 %.
    public static let maxRequestSize = 64 * 1024 * 1024 * 11 / 10
    public var maxUploadSize: Int { Self.maxRequestSize }

    public var socketIP: String {
        guard let ip = remoteAddress?.ipAddress else { return "unknown" }
        // IPv4 clients of a dual-stack socket appear as ::ffff:a.b.c.d; qBittorrent shows the IPv4 form.
        return ip.hasPrefix("::ffff:") && ip.contains(".") ? String(ip.dropFirst(7)) : ip
    }
}
