import ArgumentParser
import Foundation
import HTTPKit
import Hummingbird
import Logging
import Metrics
import Prometheus
import QBTCore
import QBTServer
import SystemKit
import Tunnel

@main
struct QBTD: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "qbtd",
        abstract: "A torrent server that speaks the qBittorrent WebAPI v2.",
        discussion: """
            With no options qbtd keeps its database, fast-resume data and downloads under one data directory \
            and serves http://127.0.0.1:8080. Every option can also be given as the QBTD_* environment variable \
            named beside it; a flag wins over the environment.
            """)

    @Option(help: "Data directory: database, fast-resume data, downloads. [QBTD_DATA_DIR] (default: ~/.local/share/qbtd)")
    var dataDir: String?

    @Option(help: "Default download directory (the default save path). [QBTD_DOWNLOAD_DIR] (default: <data-dir>/downloads)")
    var downloadDir: String?

    @Option(help: "Confine every path a client names (save paths, categories, uploads, the torrent creator) to these folders, colon-separated; the download and uploads folders are always allowed. [QBTD_ALLOWED_PATHS] (default: any path qbtd can write, as qBittorrent)")
    var allowedPaths: String?

    @Option(help: "Address the WebAPI listens on. [QBTD_HOST] (default: 127.0.0.1)")
    var host: String?

    @Option(help: "Port the WebAPI listens on. [QBTD_PORT] (default: 8080)")
    var port: Int?

    @Option(help: "WebUI username. [QBTD_USERNAME] (default: admin)")
    var username: String?

    @Option(help: "WebUI password, stored as a salted PBKDF2 hash. [QBTD_PASSWORD] (default: generated once and printed)")
    var password: String?

    @Option(help: "Where libtorrent listens for peers, HOST:PORT. [QBTD_PEER_LISTEN] (default: 0.0.0.0:<listen_port preference, 6881>)")
    var peerListen: String?

    @Flag(help: "Turn off DHT, LSD, PeX, UPnP and NAT-PMP: contact only peers you name. [QBTD_NO_DISCOVERY=1]")
    var noDiscovery = false

    @Flag(help: "Turn off uTP (TCP only). [QBTD_NO_UTP=1]")
    var noUtp = false

    @Option(help: "qBittorrent release to present as: 4.6, 5.1, 5.2 or 5.3. [QBTD_PROFILE] (default: 5.3)")
    var profile: String?

    @Option(help: "Seconds between fast-resume saves of changed torrents. [QBTD_RESUME_INTERVAL] (default: 15)")
    var resumeInterval: Int?

    @Option(help: "Seconds one search plugin may run before it is stopped. [QBTD_SEARCH_TIMEOUT] (default: 180)")
    var searchTimeout: Int?

    @Option(help: "Seconds a connection may take to send a request's headers. [QBTD_REQUEST_TIMEOUT] (default: 30)")
    var requestTimeout: Int?

    @Option(help: "Seconds a connection may sit idle between requests, or a request body stall. [QBTD_IDLE_TIMEOUT] (default: 120)")
    var idleTimeout: Int?

    @Option(help: "Threads that serve HTTP connections. [QBTD_HTTP_THREADS] (default: half the cores, at least 1)")
    var httpThreads: Int?

    @Option(help: "Where streamed torrents qbtd does not have download to. [QBTD_STREAM_CACHE_DIR] (default: <data-dir>/stream-cache)")
    var streamCacheDir: String?

    @Option(help: "MiB the stream cache may hold per streamed torrent. [QBTD_STREAM_CACHE_BUDGET] (default: 4096)")
    var streamCacheBudget: Int?

    @Flag(help: "Keep a stream's data when it stops, if the torrent completed. [QBTD_STREAM_KEEP_COMPLETED=1]")
    var streamKeepCompleted = false

    @Option(help: "Seconds stream/prepare waits for a magnet's metadata. [QBTD_STREAM_METADATA_TIMEOUT] (default: 60)")
    var streamMetadataTimeout: Int?

    @Option(help: "Where uploads land by default; also a save root for seeding them. [QBTD_UPLOADS_DIR] (default: <data-dir>/uploads)")
    var uploadsDir: String?

    @Option(help: "MiB of free space an upload must leave. [QBTD_UPLOAD_MARGIN] (default: 200)")
    var uploadMargin: Int?

    @Option(help: "MiB one upload may have at most. [QBTD_MAX_UPLOAD_SIZE] (default: no limit but free space)")
    var maxUploadSize: Int?

    @Option(help: "Seconds an unfinished tus upload lives after its last write. [QBTD_UPLOAD_EXPIRY] (default: 86400)")
    var uploadExpiry: Int?

    @Option(help: "A folder of MP3s to serve as HLS under /music (repeatable). [QBTD_MUSIC_DIRS, colon-separated]")
    var musicDir: [String] = []

    @Flag(help: "Encrypt the music's HLS segments (AES-128). [QBTD_MUSIC_ENCRYPT=1]")
    var musicEncrypt = false

    @Option(help: "Seconds between rescans of the music folders. [QBTD_MUSIC_RESCAN] (default: 300)")
    var musicRescan: Int?

    @Option(help: "Serve /metrics (Prometheus) without authentication on this HOST:PORT too, e.g. 127.0.0.1:9101 for a local Prometheus. [QBTD_METRICS_LISTEN]")
    var metricsListen: String?

    @Option(help: "Publish qbtd through a Cloudflare tunnel: quick (a random trycloudflare.com address, no account) or the name of a tunnel made with `cloudflared tunnel create`. Needs cloudflared on PATH. [QBTD_TUNNEL]")
    var tunnel: String?

    @Option(help: "The public address of a named tunnel, when cloudflared's output does not name it (https://music.example.org). [QBTD_TUNNEL_URL]")
    var tunnelUrl: String?

    @Option(help: "An API key to install as the key named default: qBittorrent's qbt_… or any key of at least 128 random bits (32 hex digits, 22 base64 characters), so clients keep the key they have. [QBTD_API_KEY]")
    var apiKey: String?

    @Option(help: "What --api-key reaches: full, read-only, music, stream or upload. [QBTD_API_KEY_SCOPE] (default: full)")
    var apiKeyScope: String?

    @Option(help: "Serve HTTPS with this PEM certificate (chain, leaf first); needs --https-key. Wins over the use_https preference. [QBTD_HTTPS_CERT]")
    var httpsCert: String?

    @Option(help: "The PEM private key of --https-cert. [QBTD_HTTPS_KEY]")
    var httpsKey: String?

    @Option(help: "Serve this alternative WebUI folder (public/ and private/, as qBittorrent's; VueTorrent's release folder, say) at / instead of qbtd's own interface. Wins over the alternative_webui_* preferences. [QBTD_WEBUI_DIR]")
    var webuiDir: String?

    @Option(help: "Be a node of a qbtd cluster whose catalogue is this PostgreSQL database (postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=disable|prefer|require) instead of the SQLite file in the data directory. [QBTD_CLUSTER]")
    var cluster: String?

    @Option(help: "This node's name in the cluster: letters, digits, -, _ and . (1-63). [QBTD_NODE] (default: the host's name)")
    var node: String?

    @Option(help: "Seconds this node may stay silent before the other nodes count it lapsed (3-600); it tells them it is there three times as often. [QBTD_NODE_LEASE] (default: 15)")
    var nodeLease: Int64?

    @Option(help: "KiB per second this node may fetch torrents moved to it from other nodes at (qbtd/moveToNode), 0 for no limit. [QBTD_MOVE_RATE_LIMIT] (default: 0)")
    var moveRateLimit: Int?

    func run() async throws {
        let env = ProcessInfo.processInfo.environment
        func flag(_ name: String) -> Bool { ["1", "true", "yes"].contains(env[name]?.lowercased() ?? "") }
        var config = ServerConfiguration(dataDirectory: dataDir ?? env["QBTD_DATA_DIR"] ?? ServerConfiguration.defaultDataDirectory)
        config.downloadDirectory = downloadDir ?? env["QBTD_DOWNLOAD_DIR"]
        if let allowed = allowedPaths ?? env["QBTD_ALLOWED_PATHS"] {
            let dirs = allowed.split(separator: ":").map(String.init).filter { !$0.isEmpty }
            guard dirs.allSatisfy({ $0.hasPrefix("/") }) else { throw ValidationError("--allowed-paths takes absolute folders, colon-separated") }
            config.allowedPaths = dirs
        }
        config.host = host ?? env["QBTD_HOST"] ?? config.host
        if let p = port ?? env["QBTD_PORT"].flatMap({ Int($0) }) {
            guard (0...65535).contains(p) else { throw ValidationError("--port must be 0…65535") }
            config.port = p
        }
        config.username = username ?? env["QBTD_USERNAME"]
        config.password = password ?? env["QBTD_PASSWORD"]
        config.peerListen = peerListen ?? env["QBTD_PEER_LISTEN"]
        if let listen = config.peerListen, !Self.validHostPort(listen) {
            throw ValidationError("--peer-listen takes HOST:PORT, e.g. 0.0.0.0:6881 or [::1]:6881")
        }
        config.discovery = !(noDiscovery || flag("QBTD_NO_DISCOVERY"))
        config.utp = !(noUtp || flag("QBTD_NO_UTP"))
        /// A whole number from the flag, else from its environment variable; at least `minimum`.
        func number(_ given: Int?, _ variable: String, _ option: String, atLeast minimum: Int = 1, unit: String = "") throws -> Int? {
            guard let n = given ?? env[variable].flatMap({ Int($0) }) else { return nil }
            guard n >= minimum else { throw ValidationError("--\(option) must be \(minimum == 0 ? "≥ 0" : "positive")\(unit)") }
            return n
        }
        if let s = try number(resumeInterval, "QBTD_RESUME_INTERVAL", "resume-interval") { config.resumeInterval = .seconds(s) }
        if let s = try number(searchTimeout, "QBTD_SEARCH_TIMEOUT", "search-timeout") { config.searchTimeout = .seconds(s) }
        if let s = try number(requestTimeout, "QBTD_REQUEST_TIMEOUT", "request-timeout") { config.requestTimeout = .seconds(s) }
        if let s = try number(idleTimeout, "QBTD_IDLE_TIMEOUT", "idle-timeout") { config.idleTimeout = .seconds(s) }
        if let n = try number(httpThreads, "QBTD_HTTP_THREADS", "http-threads") { config.httpThreads = n }
        config.streamCacheDirectory = streamCacheDir ?? env["QBTD_STREAM_CACHE_DIR"]
        config.streamKeepCompleted = streamKeepCompleted || flag("QBTD_STREAM_KEEP_COMPLETED")
        if let mib = try number(streamCacheBudget, "QBTD_STREAM_CACHE_BUDGET", "stream-cache-budget", unit: " (MiB)") {
            config.streamCacheBudget = Int64(mib) << 20
        }
        if let s = try number(streamMetadataTimeout, "QBTD_STREAM_METADATA_TIMEOUT", "stream-metadata-timeout") {
            config.streamMetadataTimeout = .seconds(s)
        }
        config.uploadsDirectory = uploadsDir ?? env["QBTD_UPLOADS_DIR"]
        if let mib = try number(uploadMargin, "QBTD_UPLOAD_MARGIN", "upload-margin", atLeast: 0, unit: " (MiB)") {
            config.uploadMargin = Int64(mib) << 20
        }
        if let mib = try number(maxUploadSize, "QBTD_MAX_UPLOAD_SIZE", "max-upload-size", unit: " (MiB)") {
            config.maxUploadSize = Int64(mib) << 20
        }
        if let s = try number(uploadExpiry, "QBTD_UPLOAD_EXPIRY", "upload-expiry") { config.uploadExpiry = .seconds(s) }
        config.musicDirectories = musicDir.isEmpty
            ? (env["QBTD_MUSIC_DIRS"] ?? "").split(separator: ":").map(String.init).filter { !$0.isEmpty } : musicDir
        for dir in config.musicDirectories {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--music-dir \(dir) is not a folder")
            }
        }
        config.musicEncrypt = musicEncrypt || flag("QBTD_MUSIC_ENCRYPT")
        if let s = try number(musicRescan, "QBTD_MUSIC_RESCAN", "music-rescan") { config.musicRescanInterval = .seconds(s) }
        if let listen = metricsListen ?? env["QBTD_METRICS_LISTEN"].flatMap({ $0.isEmpty ? nil : $0 }) {
            guard Self.validHostPort(listen), let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]) else {
                throw ValidationError("--metrics-listen is HOST:PORT (127.0.0.1:9101), not \(listen)")
            }
            config.metricsListen = (String(listen[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port)
        }
        if let name = tunnel ?? env["QBTD_TUNNEL"].flatMap({ $0.isEmpty ? nil : $0 }) {
            guard let kind = TunnelConfiguration.kind(name) else {
                throw ValidationError("--tunnel is quick or a tunnel's name (letters, digits, -, _, .), not \(name)")
            }
            config.tunnel = kind
        }
        if let url = cluster ?? env["QBTD_CLUSTER"].flatMap({ $0.isEmpty ? nil : $0 }) {
            guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else {
                throw ValidationError("--cluster is a postgres:// URL (postgres://USER:PASSWORD@HOST:PORT/DATABASE), not \(url)")
            }
            let name = node ?? env["QBTD_NODE"].flatMap({ $0.isEmpty ? nil : $0 }) ?? HostName.current
            guard Identity.isNodeName(name) else {
                throw ValidationError("--node is 1-63 letters, digits, -, _ or ., not \(name)")
            }
            let lease = try nodeLease ?? env["QBTD_NODE_LEASE"].flatMap({ $0.isEmpty ? nil : $0 }).map {
                guard let seconds = Int64($0) else { throw ValidationError("QBTD_NODE_LEASE is a number of seconds, not \($0)") }
                return seconds
            } ?? ServerConfiguration.defaultNodeLease
            guard (3...600).contains(lease) else { throw ValidationError("--node-lease is 3 to 600 seconds, not \(lease)") }
            config.cluster = (url, name, lease)
            let moveLimit = try moveRateLimit ?? env["QBTD_MOVE_RATE_LIMIT"].flatMap({ $0.isEmpty ? nil : $0 }).map {
                guard let kib = Int($0) else { throw ValidationError("QBTD_MOVE_RATE_LIMIT is KiB per second, not \($0)") }
                return kib
            } ?? 0
            guard (0...(Int(Int32.max) / 1024)).contains(moveLimit) else {
                throw ValidationError("--move-rate-limit is 0 (no limit) to \(Int(Int32.max) / 1024) KiB/s, not \(moveLimit)")
            }
            config.moveRateLimit = moveLimit * 1024
        } else if node != nil || env["QBTD_NODE"].map({ !$0.isEmpty }) == true {
            throw ValidationError("--node names this process within a cluster: give --cluster postgres://… too")
        }
        if let url = tunnelUrl ?? env["QBTD_TUNNEL_URL"].flatMap({ $0.isEmpty ? nil : $0 }) {
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil else {
                throw ValidationError("--tunnel-url is an http(s) address, not \(url)")
            }
            config.tunnelURL = url
        }
        config.apiKey = apiKey ?? env["QBTD_API_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        if let key = config.apiKey, let problem = KeyStrength.problem(key) { throw ValidationError("--api-key: \(problem)") }
        let scopeName = apiKeyScope ?? env["QBTD_API_KEY_SCOPE"].flatMap { $0.isEmpty ? nil : $0 } ?? "full"
        guard let scope = APIKeyScope(rawValue: scopeName) else {
            throw ValidationError("--api-key-scope is one of \(APIKeyScope.names), not \(scopeName)")
        }
        config.apiKeyScope = scope

        let certificate = httpsCert ?? env["QBTD_HTTPS_CERT"].flatMap { $0.isEmpty ? nil : $0 }
        let key = httpsKey ?? env["QBTD_HTTPS_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        switch (certificate, key) {
        case (nil, nil): break
        case (let certificate?, let key?): config.https = HTTPSFiles(certificate: certificate, key: key)
        default: throw ValidationError("--https-cert and --https-key go together (QBTD_HTTPS_CERT, QBTD_HTTPS_KEY)")
        }

        if let folder = webuiDir ?? env["QBTD_WEBUI_DIR"].flatMap({ $0.isEmpty ? nil : $0 }) {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                throw ValidationError("--webui-dir: \(folder) is not a folder (it should hold public/index.html)")
            }
            config.webUIDirectory = URL(fileURLWithPath: folder).standardizedFileURL.path
        }

        let profileName = profile ?? env["QBTD_PROFILE"] ?? "5.3"
        guard let chosen = Identity.Profile(rawValue: profileName) else {
            throw ValidationError("--profile takes 4.6, 5.1, 5.2 or 5.3")
        }
        config.profile = chosen
        let eventLog = config.eventLog
        LoggingSystem.bootstrap { label in EventLogHandler(wrapping: StreamLogHandler.standardOutput(label: label), log: eventLog) }
        // swift-metrics' counters and timers (requests, stream bytes, music segments) land in the registry /metrics reads.
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        config.metricsRegistry = registry
        var logger = Logger(label: "qbtd")
        logger.logLevel = env["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        let host = config.host.contains(":") ? "[\(config.host)]" : config.host
        let (app, parts) = try await buildApplication(config, logger: logger, onServerRunning: { boundPort, https in
            say("qbtd is serving the qBittorrent WebAPI at \(https ? "https" : "http")://\(host):\(boundPort)")
        })
        let username = await parts.credentials.username
        say("data directory: \(config.dataDirectory)")
        // What qbtd made itself goes to a file only this user reads: stdout is a log others read and keep.
        var secrets: [String] = []
        if case .generated(let password) = parts.credentialOutcome {
            secrets += ["WebUI username: \(username)", "WebUI password: \(password)"]
        }
        if let key = parts.firstKey { secrets.append("API key (default, full scope): \(key)") }
        let secretsFile = secrets.isEmpty ? nil : try FirstStartSecrets.write(secrets, dataDirectory: config.dataDirectory)
        switch parts.credentialOutcome {
        case .generated:
            say("No WebUI password was set, so one was generated and stored. Log in as '\(username)' with the password "
                + "in \(secretsFile ?? "-") (readable only by this user; delete it once noted). --password or QBTD_PASSWORD changes it.")
        case .set, .kept:
            say("Log in as '\(username)' with the password you set (--password or QBTD_PASSWORD changes it).")
        }
        if parts.firstKey != nil {
            say("An API key was made for the music library and scripts: it is in \(secretsFile ?? "-") (`qbt music key` makes a music-only one).")
        }
        if let secretsFile, FirstStartSecrets.onTerminal {
            say("On this terminal only (\(secretsFile) holds the same):")
            for line in secrets { say("  " + line) }
        }
        try await app.runService()
    }

    static func validHostPort(_ value: String) -> Bool {
        guard let colon = value.lastIndex(of: ":"), let port = Int(value[value.index(after: colon)...]),
              (0...65535).contains(port) else { return false }
        return !value[..<colon].isEmpty
    }
}

/// Writes a line to stdout at once (print is block-buffered into files and pipes), so a supervisor or a test
/// sees the banner and a generated password as soon as they are written.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
