/// Why the service refused a request, in qBittorrent's terms; the WebAPI maps these to its status codes.
public enum ServiceError: Error, Equatable, Sendable {
    /// 409 with this message.
    case conflict(String)
    /// 400 with this message.
    case invalid(String)
    /// 403 with this message.
    case forbidden(String)
    /// 404.
    case notFound
}
