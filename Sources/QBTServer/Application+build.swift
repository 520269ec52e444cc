import Foundation
import Hummingbird
import Logging
import QBTCore
import Store
import TorrentEngine
import WebAPI

/// What a running server is made of, so `main` and the tests can reach its parts.
public struct ServerParts: Sendable {
    public let service: TorrentService
    public let credentials: Credentials
    public let sessions: SessionManager
    public let credentialOutcome: Credentials.Outcome
}

/// Builds the whole server: store, engine, controllers, HTTP. Used by `qbtd` and by the tests alike.
public func buildApplication(
    _ config: ServerConfiguration, logger: Logger = Logger(label: "qbtd"),
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> (some ApplicationProtocol, ServerParts) {
    let paths = try ServerPaths(dataDirectory: config.dataDirectory, downloadRoot: config.downloadDirectory)
    let store = try Store(path: paths.databasePath)
    let credentials = try await Credentials(store: store)
    let outcome = try await credentials.prepare(username: config.username, password: config.password)
    let engineSettings = config.engineSettings(preferences: try await PreferenceSettings.load(from: store))
    let service = try await TorrentService(
        settings: engineSettings, store: store, paths: paths, resumeInterval: config.resumeInterval, logger: logger)
    let sessions = SessionManager()
    let identity = Identity.qBittorrent5_1

    let router = Router(context: QBTRequestContext.self)
    router.add(middleware: SecurityHeadersMiddleware())
    // qbittorrent-api probes the scheme with `HEAD /`; qBittorrent serves its WebUI there.
    router.on("/", method: .get) { _, _ in "qbtd: a qBittorrent-compatible torrent server. API under /api/v2/\n" }
    router.on("/", method: .head) { _, _ in Response(status: .ok) }
    APIRouter(controllers: [
        AuthController(credentials: credentials, sessions: sessions),
        AppController(identity: identity, service: service, credentials: credentials, engineSettings: engineSettings,
                      webUI: (config.host, config.port)),
        TorrentsController(service: service, identity: identity),
    ], sessions: sessions, logger: logger).addRoutes(to: router)

    let app = Application(
        router: router,
        configuration: .init(address: .hostname(config.host, port: config.port), serverName: "qbtd"),
        services: [EngineLifecycle(service: service)],
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? config.port) },
        logger: logger)
    return (app, ServerParts(service: service, credentials: credentials, sessions: sessions, credentialOutcome: outcome))
}
