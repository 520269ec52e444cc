import Cluster
import Foundation
import HTTPKit
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import Music
import MusicHTTP
import Prometheus
import PushHTTP
import PostgresStore
import QBTCore
import QbtdAPI
import RSS
import Search
import Store
import StreamHTTP
import Streaming
import SystemKit
import TorrentEngine
import Tunnel
import UploadHTTP
import Uploads
import WebAPI
import WebUI

/// What a running server is made of, so `main` and the tests can reach its parts.
public struct ServerParts: Sendable {
    public let service: TorrentService
    public let credentials: Credentials
    public let sessions: SessionManager
    public let keys: APIKeyRing
    public let credentialOutcome: Credentials.Outcome
    /// The API key made at this first start (music folders and no key yet): shown once.
    public let firstKey: String?
    /// Every `/api/v2` route.
    public let routes: [APIRouter.Route]
}

/// Builds the whole server: store, engine, controllers, HTTP. Used by `qbtd` and by the tests alike.
/// `onShutdown` runs for `app/shutdown`; by default it sends this process SIGTERM, which stops it gracefully.
public func buildApplication(
    _ config: ServerConfiguration, logger: Logger = Logger(label: "qbtd"),
    onShutdown: @escaping @Sendable () -> Void = requestGracefulShutdown,
    onServerRunning: @escaping @Sendable (_ port: Int, _ https: Bool) async -> Void = { _, _ in }
) async throws -> (some ApplicationProtocol, ServerParts) {
    let paths = try ServerPaths(dataDirectory: config.dataDirectory, downloadRoot: config.downloadDirectory,
                                uploadsDirectory: config.uploadsDirectory, allowedPaths: config.allowedPaths)
    let store: any Store = if let cluster = config.cluster {
        try await PostgresStore(url: cluster.url, node: cluster.node, logger: logger)
    } else {
        try SQLiteStore(path: paths.databasePath)
    }
    let credentials = try await Credentials(store: store)
    let outcome = try await credentials.prepare(username: config.username, password: config.password)
    let settings = try await ServerSettings(store: store, paths: paths, overrides: config.overrides,
                                          node: config.cluster?.node)
    // Each component registers the handler that applies its preferences where it is built; `settings.update` runs
    // them in the appliers' order (PreferenceEntry.Applier).
    credentials.followPreferences(settings)
    // The WebUI's security and TLS first: bad --https-cert/--https-key files stop qbtd before the engine starts.
    let policy = WebSecurityPolicy(settings.current)
    let gate = WebGate(policy, webUIDirectory: config.webUIDirectory)
    let webTLS = WebTLS()
    let https = WebHTTPS(tls: webTLS, gate: gate, log: config.eventLog, commandLine: config.https)
    try await https.start(preferences: settings.current)
    https.followPreferences(settings)
    MemoryTuning.apply()
    let engine = try TorrentService.openEngine(settings: settings, store: store, resumeInterval: config.resumeInterval,
                                               logger: logger)
    let service = try await TorrentService(settings: settings, store: store, engine: engine, log: config.eventLog,
                                           logger: logger)
    MemoryTuning.trim()
    let keys = try await APIKeyRing(store: store, logger: logger)
    let registry = store as? any NodeRegistry  // nil: not a cluster
    let membership = NodeMembership(name: config.cluster?.node ?? HostName.current, lease: config.cluster?.lease ?? NodeMembership.lease,
                                    registry: registry, logger: logger) { [paths] in
        let transfer = await service.session.transfer()
        return NodeRecord(name: "", address: "\(config.host):\(config.port)", startedAt: 0, torrents: await service.count,
                          downloadRate: Int64(transfer.downloadSpeed), uploadRate: Int64(transfer.uploadSpeed),
                          savePath: paths.downloadRoot, freeSpace: DiskSpace.available(at: paths.downloadRoot) ?? 0,
                          runningLimits: settings.clusterLimits, queueDemand: await service.queueDemand(),
                          totals: TransferTotals(sessionDownload: transfer.downloadedSession, sessionUpload: transfer.uploadedSession,
                                                 allTimeDownload: transfer.downloadedAllTime, allTimeUpload: transfer.uploadedAllTime))
    }
    // A cluster's node: its exchanges with the others (nil: a single server).
    let cluster = registry.map { registry in
        let node = config.cluster?.node ?? ""
        let commands = CommandRelay(registry: registry, node: node, logger: logger)
        let views = TorrentViewsSync(registry: registry, service: service, node: node, logger: logger)
        let moves = (store as? any TorrentMoveRegistry).map {
            TorrentMoves(registry: $0, store: store, service: service, node: node, defaultSavePath: paths.downloadRoot,
                         rateLimit: config.moveRateLimit, membership: membership, views: views, logger: logger)
        }
        let adoption = (store as? any TorrentAdoptionRegistry).map {
            TorrentAdoption(registry: $0, service: service, membership: membership, views: views, node: node,
                            downloadRoot: paths.downloadRoot, logger: logger)
        }
        let catalogue = CatalogueSync(registry: registry, service: service, settings: settings, credentials: credentials,
                                      keys: keys, logger: logger)
        return (registry: registry, commands: commands, views: views, moves: moves, adoption: adoption, catalogue: catalogue,
                relay: ClusterRelay(commands: commands, service: service, membership: membership, views: views,
                                    catalogue: catalogue))
    }
    let relay = cluster?.relay
    var identity = Identity(profile: config.profile)
    identity.node = config.cluster?.node
    let sessions = SessionManager(policy: policy.sessions, countLimited: identity.profile >= .v5_3)
    if let shared = store as? any SharedSessions { await sessions.share(shared, logger: logger) }  // a cluster's: a login opens every node
    gate.followPreferences(settings, sessions: sessions, log: config.eventLog)
    var streamSettings = StreamService.Configuration(cacheDirectory: config.streamCacheDirectory ?? paths.dataDirectory + "/stream-cache")
    streamSettings.keepCompleted = config.streamKeepCompleted
    streamSettings.budget = config.streamCacheBudget
    streamSettings.metadataTimeout = config.streamMetadataTimeout
    let streams = try await StreamService(engine: engine, torrents: service, configuration: streamSettings)
    let search = try await SearchService(store: store, dataDirectory: paths.dataDirectory, torrents: service,
                                         settings: settings, log: config.eventLog, timeout: config.searchTimeout,
                                         quotedNames: identity.profile >= .v5_3)  // 5.3's printer percent-encodes names
    let rss = try await RSSService(store: store, settings: settings, torrents: service, profile: identity.profile)
    await rss.start()

    var uploadSettings = UploadConfiguration(uploadsDirectory: paths.uploadsDirectory, confinement: paths.confinement)
    uploadSettings.margin = config.uploadMargin
    uploadSettings.maxUploadSize = config.maxUploadSize
    uploadSettings.tusExpiry = TimeInterval(config.uploadExpiry.components.seconds)
    let uploadBoard = ProgressBoard()
    let tus = try await TusService(store: store, configuration: uploadSettings, board: uploadBoard, logger: logger)
    let creator = TorrentCreationManager(service: service, outputDirectory: paths.dataDirectory + "/torrent-creator")

    // Music folders: the command line's, else the `music_dirs` preference stored earlier.
    var musicDirectories = config.musicDirectories
    if musicDirectories.isEmpty, case .array(let stored)? = await settings.state(.musicDirectories) {
        musicDirectories = stored.compactMap(\.stringValue)
    }
    var firstKey: String?
    if let key = config.apiKey { try await keys.installDefault(key, scope: config.apiKeyScope) }
    else if !musicDirectories.isEmpty, await keys.keys.isEmpty { firstKey = try await keys.rotateDefault().key }
    var musicSettings = MusicLibrary.Configuration(directories: musicDirectories, dataDirectory: paths.dataDirectory + "/music")
    musicSettings.encrypt = config.musicEncrypt
    let music = try await MusicLibrary(configuration: musicSettings)
    music.followPreference(settings, fromCommandLine: !config.musicDirectories.isEmpty, log: config.eventLog)
    // A tunnel to the outside for the music library: cloudflared pointed at qbtd's own address.
    let tunnel = config.tunnel.map { kind in
        let local = ["0.0.0.0", "::", "*"].contains(config.host) ? "127.0.0.1" : config.host.contains(":") ? "[\(config.host)]" : config.host
        let origin = "\(gate.https ? "https" : "http")://\(local):\(config.port)"
        let log = config.eventLog
        return CloudflaredTunnel(configuration: TunnelConfiguration(kind: kind, origin: origin, publicURL: config.tunnelURL),
                                 logger: logger) { message, warning in log.add(message, kind: warning ? .warning : .info) }
    }
    let routeList = RouteList()
    // torrents/info and sync/maindata share one set of encoded rows.
    let rows = RowCache(identity: identity)
    Task { rows.prepare(await service.currentBoard()) }  // while the server starts, not in the first listing
    let sync = SyncController(service: service, settings: settings, identity: identity, rows: rows)
    let feed = MainDataFeed(sync: sync)  // sync/maindata pushed, to every listener from one loop
    let controllers: [any APIController] = [
        AuthController(credentials: credentials, sessions: sessions, identity: identity, gate: gate),
        AppController(identity: identity, service: service, settings: settings, credentials: credentials, keys: keys,
                      webUI: (config.host, config.port), music: music, https: https, onShutdown: onShutdown),
        LogController(log: config.eventLog),
        sync,
        TransferController(service: service, settings: settings, identity: identity),
        TorrentsController(service: service, settings: settings, identity: identity, rows: rows,
                           searchPlugins: { Set(await search.pluginList.map(\.record.name)) }),
        SearchController(search: search, service: service, settings: settings, identity: identity),
        RSSController(rss: rss, identity: identity),
        QbtdController(keys: keys, sessions: sessions, search: search, paths: paths, routes: routeList, membership: membership,
                       moves: cluster?.moves),
        StreamController(streams: streams),
        TorrentCreatorController(creator: creator, paths: paths, identity: identity),
    ] + (identity.profile >= .v5_2 ? [ClientDataController(settings: settings)] : [])  // 5.2 added clientdata/*
    let api = APIRouter(controllers: controllers, sessions: sessions, gate: gate, keys: keys, credentials: credentials, identity: identity, logger: logger,
                        relay: relay)
    relay?.attach(api)
    // qbtd's web interface plays music with its session (same-site requests only, as the API's CSRF rule).
    let musicRoutes = MusicRoutes(library: music, host: MusicHost(), keys: keys, appVersion: "qbtd (qBittorrent \(identity.appVersion))",
                                  tunnelURL: { await tunnel?.publicURL }, webSession: api.sameSiteSession)
    let router = Router(context: QBTRequestContext.self)
    router.add(middleware: RequestMetricsMiddleware(known: Set(api.routes.map { "\($0.group)/\($0.action)" })))
    router.add(middleware: SecurityHeadersMiddleware(gate: gate))
    // qBittorrent's WebAPI and the web interface's files are gzipped when the client accepts it, as qBittorrent's.
    let compressed = router.group().add(middleware: ResponseCompressionMiddleware())
    api.addRoutes(to: compressed)
    // `/` and every other path: qbtd's own interface or an alternative WebUI (qbittorrent-api probes `HEAD /`).
    WebUIRoutes(api: api, gate: gate, builtIn: BuiltInWebUI.folder()) {
        // Once, and never for --webui-dir (the flag wins over the preference, so turning it off would change nothing).
        guard config.webUIDirectory == nil, settings[\.alternativeWebUIEnabled] else { return }
        var off: [String: JSONValue] = [:]
        off[\.alternativeWebUIEnabled] = false
        _ = try? await settings.update(off)  // the gate follows (WebGate.followPreferences)
        config.eventLog.add("The alternative WebUI's index.html cannot be served: alternative_webui_enabled is now false", kind: .warning)
    }.addRoutes(to: compressed)
    let metrics = MetricsRoutes(metrics: ServerMetrics(registry: config.metricsRegistry ?? PrometheusCollectorRegistry(), service: service,
                                                       streams: streams, search: search, uploads: uploadBoard))
    metrics.addRoutes(to: router, api: api)
    StreamPlayback(streams: streams, logger: logger).addRoutes(to: router)
    UploadRoutes(api: api, configuration: uploadSettings, board: uploadBoard, service: service).addRoutes(to: router)
    TusRoutes(api: api, tus: tus, service: service).addRoutes(to: router)
    musicRoutes.addRoutes(to: router)
    EventStreamRoutes(api: api, feed: feed).addRoutes(to: router)
    // WebSocket upgrades go to their own router (Hummingbird runs only it for an `Upgrade: websocket` request).
    let sockets = Router(context: QBTRequestContext.self)
    MusicSocket(routes: musicRoutes).addRoutes(to: sockets)
    EventSocket(api: api, feed: feed).addRoutes(to: sockets)
    routeList.fill((router.routes + sockets.routes).map { ($0.method.rawValue, $0.path.description) }, api: api.routes)

    // Music segments cut before skip the router over plain HTTP when their key and track are ready (see there).
    let serverName = "qbtd"  // the `Server` header, the router's and the fast path's alike
    let segmentFastPath = MusicSegmentFastPath(library: music, keys: keys, gate: gate, serverName: serverName)
    // HTTP/1 with WebSocket upgrades, behind TLS whenever HTTPS is on when a connection is accepted.
    let socketResponder = sockets.buildResponder()
    let socketConfiguration = HTTP1WebSocketUpgradeChannel.Configuration(
        http1: .init(additionalChannelHandlers: [segmentFastPath.handler()], idleTimeout: .seconds(config.idleTimeout.components.seconds)),
        ws: .init(maxFrameSize: 1 << 20, autoPing: .disabled, validateUTF8: true))
    let app = Application(
        router: router,
        server: HTTPServerBuilder { responder in
            SwitchableTLSChannel(
                base: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: socketResponder,
                                                   configuration: socketConfiguration),
                tls: webTLS, requestTimeout: .seconds(config.requestTimeout.components.seconds))
        },
        configuration: .init(address: .hostname(config.host, port: config.port), serverName: serverName),
        services: [
            EngineLifecycle(service: service, before: { await feed.close(); await rss.shutdown(); await membership.leave() }),
            Periodic(every: membership.heartbeat, startAtOnce: true) { await membership.beat() },  // a cluster's node only
            Periodic(every: .seconds(60), startAtOnce: false) {  // expired tus uploads
                do { try await tus.sweep() } catch { logger.warning("expired tus uploads stay until the next sweep: \(error)") }
            },
            Periodic(every: config.musicRescanInterval, startAtOnce: true) {  // the music folders, when there are some
                if await !music.directories.isEmpty { await music.scan(join: true) }
            },
        ] + (tunnel.map { [TunnelLifecycle(tunnel: $0)] } ?? [])
          + (cluster.map { [ClusterLifecycle(views: $0.views, commands: $0.commands, relay: $0.relay, moves: $0.moves, adoption: $0.adoption,
                                             catalogue: $0.catalogue,
                                             membership: membership, sessions: sessions,
                                             limits: ClusterLimits(registry: $0.registry, membership: membership, service: service,
                                                                   settings: settings, logger: logger))] } ?? [])
          + (config.metricsListen.map { [metrics.application(host: $0.host, port: $0.port, logger: logger)] } ?? []),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? config.port, gate.https) },
        eventLoopGroupProvider: .shared(HTTPLoops.group(threads: config.httpThreads)),
        logger: logger)
    config.eventLog.add("qbtd started (presenting as qBittorrent \(identity.appVersion))", kind: .info)
    return (app, ServerParts(service: service, credentials: credentials, sessions: sessions, keys: keys,
                             credentialOutcome: outcome, firstKey: firstKey, routes: api.routes))
}

/// `app/shutdown`: answer first, then stop the way SIGTERM does (fast-resume saved, session closed).
@Sendable public func requestGracefulShutdown() {
    Task {
        try? await Task.sleep(for: .milliseconds(100))
        kill(getpid(), SIGTERM)
    }
}
