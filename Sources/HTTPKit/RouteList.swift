import Synchronization

/// Every route the server answers, as `METHOD /path` (path parameters as `{name}`), filled in once the routers are
/// built: `qbtd/routes` shows it, and the OpenAPI document is checked against it.
public final class RouteList: Sendable {
    private let entries = Mutex<[String]>([])

    public init() {}

    public var all: [String] { entries.withLock { $0 } }

    /// `routes`: (method, path) pairs as Hummingbird describes them (parameters already `{name}`); the WebAPI's
    /// `/api/v2/{scope}/{action}` becomes one entry per action and method its rule allows (GET and POST, or POST only).
    public func fill(_ routes: [(method: String, path: String)], api: [APIRouter.Route]) {
        var out = Set<String>()
        for (method, path) in routes where path != "/api/v2/{scope}/{action}" { out.insert("\(method) \(path)") }
        for route in api {
            out.insert("POST /api/v2/\(route.group)/\(route.action)")
            if route.readOnly { out.insert("GET /api/v2/\(route.group)/\(route.action)") }
        }
        entries.withLock { $0 = out.sorted { ($0.split(separator: " ")[1], $0) < ($1.split(separator: " ")[1], $1) } }
    }
}
