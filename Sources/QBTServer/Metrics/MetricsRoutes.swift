import HTTPKit
import Hummingbird
import Logging
import NIOCore
import WebAPI

/// `GET /metrics`: on qbtd's address with the session or an API key (any scope that reads), and with
/// `--metrics-listen` on an address of its own without authentication, for a Prometheus on the same host.
struct MetricsRoutes: Sendable {
    let metrics: ServerMetrics

    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    func response() async -> Response {
        Response(status: .ok, headers: [.contentType: Self.contentType], body: .init(byteBuffer: ByteBuffer(bytes: await metrics.render())))
    }

    func addRoutes(to router: Router<QBTRequestContext>, api: APIRouter) {
        router.get("/metrics") { request, context in
            await api.admitted(request, context, area: .api(group: "metrics", action: "scrape", readOnly: true)) { _ in
                await response()
            }
        }
    }

    /// The unauthenticated listener of `--metrics-listen`: `/metrics` and nothing else.
    func application(host: String, port: Int, logger: Logger) -> some ApplicationProtocol {
        let router = Router()
        router.get("/metrics") { _, _ in await response() }
        return Application(router: router, configuration: .init(address: .hostname(host, port: port), serverName: "qbtd-metrics"),
                           logger: logger)
    }
}
