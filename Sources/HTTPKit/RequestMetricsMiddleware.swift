import Hummingbird
import Metrics

/// Counts every request and times it to its response head, per route, through swift-metrics
/// (`qbtd_http_requests_total{route,status}`, `qbtd_http_request_duration_seconds{route}`). A route is a WebAPI
/// action the table knows (`torrents/info`) or one of qbtd's areas; anything else is `other`, so a client making up
/// paths cannot make up series.
public struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let known: Set<String>

    /// `known`: the WebAPI's `group/action` names.
    public init(known: Set<String>) { self.known = known }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let route = Self.route(request.uri.path, known: known)
        do {
            let response = try await next(request, context)
            Self.record(route, status: response.status.code, since: started)
            return response
        } catch {
            Self.record(route, status: (error as? any HTTPResponseError)?.status.code ?? 500, since: started)
            throw error
        }
    }

    package static func record(_ route: String, status: Int, since started: ContinuousClock.Instant) {
        Counter(label: "qbtd_http_requests_total", dimensions: [("route", route), ("status", String(status))]).increment()
        let elapsed = ContinuousClock.now - started
        Timer(label: "qbtd_http_request_duration_seconds", dimensions: [("route", route)])
            .recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
    }

    static func route(_ path: String, known: Set<String>) -> String {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        switch parts.first {
        case nil: return "/"
        case "api" where parts.count >= 3 && parts[1] == "v2":
            if parts[2] == "uploads" { return "uploads" }
            if parts[2] == "tus" { return "tus" }
            if parts.count == 4, known.contains("\(parts[2])/\(parts[3])") { return "\(parts[2])/\(parts[3])" }
            return "api/other"
        case "stream", "torrent": return "stream playback"
        case "music":
            let area = parts.count > 1 ? String(parts[1]) : ""
            return ["auth", "db", "tracks", "ws"].contains(area) ? "music/\(area)" : "music/other"
        case "metrics" where parts.count == 1: return "metrics"
        default: return "other"
        }
    }
}
