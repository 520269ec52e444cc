import Hummingbird
import NIOCore

/// The request context of every qbtd route: Hummingbird's core plus the client's socket address.
public struct QBTRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// qBittorrent's request cap: 64 MiB plus 10 %.
    public static let maxRequestSize = 64 * 1024 * 1024 * 11 / 10
    public var maxUploadSize: Int { Self.maxRequestSize }

    public var clientIP: String { remoteAddress?.ipAddress ?? "unknown" }
}
