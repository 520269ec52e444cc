import Cluster
import Foundation
import HTTPKit
import NIOCore
import Prometheus
import QBTCore
import TorrentEngine
import Tunnel
import WebAPI

/// Everything `qbtd` can be told at start; each field has a flag and a `QBTD_*` environment variable.
public struct ServerConfiguration: Sendable {
    public var dataDirectory: String
    public var downloadDirectory: String?
    /// `--allowed-paths`: the folders every path a client names must stay in; nil: anywhere (qBittorrent's way).
    public var allowedPaths: [String]?
    public var host = "127.0.0.1"
    public var port = 8080
    public var username: String?
    public var password: String?
    /// Where libtorrent listens for peers, `HOST:PORT`; nil keeps the stored `listen_port` (default 6881).
    public var peerListen: String?
    /// false forces DHT, LSD, PeX, UPnP and NAT-PMP off, whatever the preferences say.
    public var discovery = true
    /// false forces uTP off.
    public var utp = true
    public var resumeInterval: Duration = .seconds(15)
    /// The event loops that serve HTTP connections: half the cores, so that on a small machine the clients' answers,
    /// the cooperative pool and libtorrent are not all taking turns on every core (on 2 cores, one loop served music
    /// segments at nginx's rate; two, at 0.69–0.78 of it, spending their time waking each other).
    public var httpThreads = max(1, System.coreCount / 2)
    /// How long one search plugin may run before it is stopped (qBittorrent: 3 minutes).
    public var searchTimeout: Duration = .seconds(180)
    /// How long a connection may take to send a whole request head (an idle or slow-header client is closed after).
    public var requestTimeout: Duration = .seconds(30)
    /// How long a kept-alive connection may sit idle between requests, or a request body stall.
    public var idleTimeout: Duration = .seconds(120)
    /// Where streams of torrents qbtd does not have download to; nil: `<data-dir>/stream-cache`.
    public var streamCacheDirectory: String?
    /// Bytes the stream cache may hold per torrent.
    public var streamCacheBudget: Int64 = 4 << 30
    /// Keep a stream's data when it stops, if the torrent completed.
    public var streamKeepCompleted = false
    /// How long `stream/prepare` waits for a magnet's metadata.
    public var streamMetadataTimeout: Duration = .seconds(60)
    /// Where uploads land by default; nil: `<data-dir>/uploads`.
    public var uploadsDirectory: String?
    /// Free space an upload must leave.
    public var uploadMargin: Int64 = 200 << 20
    /// The largest single upload; nil: only free space limits it.
    public var maxUploadSize: Int64?
    /// How long an unfinished tus upload lives after its last write.
    public var uploadExpiry: Duration = .seconds(24 * 3600)
    /// Folders of MP3s served as HLS under `/music`.
    public var musicDirectories: [String] = []
    /// AES-128 whole-segment encryption of the music's HLS segments.
    public var musicEncrypt = false
    /// How often the music folders are scanned again.
    public var musicRescanInterval: Duration = .seconds(300)
    /// `--tunnel quick|NAME`: cloudflared run as a child (its origin is filled in at start).
    public var tunnel: TunnelConfiguration.Kind?
    /// `--tunnel-url`: a named tunnel's public address, when its output does not name it.
    public var tunnelURL: String?
    /// `--metrics-listen HOST:PORT`: `/metrics` without authentication on an address of its own.
    public var metricsListen: (host: String, port: Int)?
    /// Where `/metrics` reads from: the registry the process' swift-metrics backend writes to (qbtd bootstraps it);
    /// nil makes one of its own (the tests).
    public var metricsRegistry: PrometheusCollectorRegistry?
    /// An API key to install at start as the key named `default` (for automation).
    public var apiKey: String?
    public var apiKeyScope: APIKeyScope = .full
    /// `--https-cert`/`--https-key`: serve HTTPS with these PEM files, whatever `use_https` says.
    public var https: HTTPSFiles?
    /// `--webui-dir`: an alternative WebUI folder to serve at `/`, whatever `alternative_webui_*` say.
    public var webUIDirectory: String?
    /// `--cluster URL --node NAME --node-lease SECONDS`: this process is a node of a cluster whose catalogue is that
    /// PostgreSQL database, silent for at most `lease` seconds before the others count it lapsed; nil: the embedded
    /// default, the SQLite file in the data directory.
    public var cluster: (url: String, node: String, lease: Int64)?
    public static let defaultNodeLease = NodeMembership.lease
    /// `--move-rate-limit KIB`: bytes per second a node may fetch torrents moved to it at (0: unlimited).
    public var moveRateLimit = 0
    /// Which qBittorrent release qbtd presents itself as.
    public var profile: Identity.Profile = .v5_3
    /// The execution log behind `log/main`; `main` also feeds it from the logger.
    public var eventLog = EventLog()

    public init(dataDirectory: String) { self.dataDirectory = dataDirectory }

    /// `$XDG_DATA_HOME/qbtd`, else `~/.local/share/qbtd`.
    public static var defaultDataDirectory: String {
        let env = ProcessInfo.processInfo.environment
        if let xdg = env["XDG_DATA_HOME"], !xdg.isEmpty { return xdg + "/qbtd" }
        return (env["HOME"] ?? FileManager.default.currentDirectoryPath) + "/.local/share/qbtd"
    }

    public var overrides: EngineOverrides { EngineOverrides(peerListen: peerListen, discovery: discovery, utp: utp) }
}
