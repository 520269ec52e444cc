// swift-tools-version:6.0
import PackageDescription

// libtorrent-rasterbar 2.0.11 with qbtd's patches, built static by contrib/libtorrent/build.sh (the Makefile runs it
// before any swift build) into .build-libtorrent; Debian's libtorrent-rasterbar2.0 has no call to forget a piece.
// Its public headers need the defines `pkg-config --cflags libtorrent-rasterbar` prints (static: not LINKING_SHARED).
let libtorrentDirectory = Context.packageDirectory + "/.build-libtorrent"
let libtorrentDefines: [CXXSetting] = [
    "TORRENT_USE_OPENSSL", "TORRENT_USE_LIBCRYPTO", "TORRENT_SSL_PEERS",
    "OPENSSL_NO_SSL2", "BOOST_ASIO_ENABLE_CANCELIO", "BOOST_ASIO_NO_DEPRECATED", "BOOST_ALL_NO_LIB",
].map { .define($0) } + [.unsafeFlags(["-I", libtorrentDirectory + "/include"])]

let package = Package(
    name: "qbtd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "qbtd", targets: ["qbtd"]),
        .executable(name: "qbt", targets: ["qbt"]),
        .library(name: "QBTServer", targets: ["QBTServer"]),
        .library(name: "QBTClient", targets: ["QBTClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // Persistent hash maps (TreeDictionary): snapshots that share structure, so publishing one costs the changes.
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // The WebUI's HTTPS (already in the graph through Hummingbird): TLS chosen per connection, switched live.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.2"),
        // A cluster's shared catalogue (`--cluster postgres://…`): PostgreSQL's own client on SwiftNIO.
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        // The only C++ in the tree: a thin extern "C" shim over libtorrent-rasterbar, and only for it.
        .target(
            name: "CLibtorrent",
            cxxSettings: libtorrentDefines,
            linkerSettings: [.unsafeFlags(["-L", libtorrentDirectory + "/lib"]), .linkedLibrary("torrent-qbtd"),
                             .linkedLibrary("ssl"), .linkedLibrary("crypto")]
        ),
        // C over OpenSSL's libcrypto: HLS's AES-128, running digests, PBKDF2, random bytes, PEM checks.
        .target(name: "CCrypto", linkerSettings: [.linkedLibrary("crypto")]),
        // C over libmpg123: an MP3's frame index and tags, without decoding.
        .target(name: "CMP3", linkerSettings: [.linkedLibrary("mpg123")]),
        // C for the Linux and glibc calls Swift cannot see without _GNU_SOURCE (sync_file_range, O_DIRECT, memmem, thread names).
        .target(name: "CLinux"),
        // qbtd's own HTTP GETs (.torrent URLs, plugin installs, Torznab) through libcurl, which takes every proxy kind
        // qBittorrent's settings name (URLSession on Linux takes none); C, because libcurl's setters are variadic.
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("curl")]),
        .target(name: "CZlib", linkerSettings: [.linkedLibrary("z")]),
        // The system helpers features share: child processes, blocking work off the cooperative pool, save paths and
        // their confinement, free space, worker threads. Foundation and CLinux only.
        .target(name: "SystemKit", dependencies: ["CLinux"]),
        .target(name: "HTTPFetch", dependencies: ["CCurl", "SystemKit"]),
        .target(name: "TorrentEngine", dependencies: ["CLibtorrent", "CCrypto", "CLinux", .product(name: "Logging", package: "swift-log"),
                                                      .product(name: "HashTreeCollections", package: "swift-collections")]),
        // Test and benchmark only: an engine that keeps torrents in memory (no session, no swarm, no disk).
        .target(name: "MemoryEngine", dependencies: ["TorrentEngine"]),
        // The `Store` protocol and the embedded default behind it: one SQLite file.
        .target(name: "Store", dependencies: [.product(name: "GRDB", package: "GRDB.swift"), "CCrypto"]),
        // The same `Store` in PostgreSQL, shared by the nodes of a cluster.
        .target(name: "PostgresStore", dependencies: ["Store", .product(name: "PostgresNIO", package: "postgres-nio"),
                                                      .product(name: "NIOSSL", package: "swift-nio-ssl"),
                                                      .product(name: "Logging", package: "swift-log")]),
        // Torrents as qBittorrent sees them: the engine and the store kept in step, states, preferences.
        .target(name: "QBTCore", dependencies: ["SystemKit", "TorrentEngine", "Store", "HTTPFetch", .product(name: "Logging", package: "swift-log"),
                                                .product(name: "HashTreeCollections", package: "swift-collections")]),
        // A cluster's nodes: this process's heartbeat, the list of nodes with their states, and the torrents the
        // nodes publish to each other for their listings (no HTTP in it).
        .target(name: "Cluster", dependencies: ["Store", "QBTCore", "TorrentEngine", .product(name: "Logging", package: "swift-log"),
                                                .product(name: "HashTreeCollections", package: "swift-collections")]),
        // XML from the network made safe for Foundation's XMLParser (feeds, Torznab answers).
        .target(name: "SafeXML"),
        // qBittorrent's search: nova3 Python plugins run as supervised child processes, Torznab indexers, jobs.
        .target(name: "Search", dependencies: ["QBTCore", "Store", "HTTPFetch", "SafeXML"]),
        // qBittorrent's RSS: feeds parsed (RSS 2.0, Atom), the item tree, articles and rules kept in SQLite, the
        // refresh schedule and the auto-downloader with qBittorrent's matching rules.
        .target(name: "RSS", dependencies: ["QBTCore", "SystemKit", "TorrentEngine", "Store", "HTTPFetch", "SafeXML"]),
        // Stream playback: readers parked on pieces, deadlines that follow them, the stream cache.
        .target(name: "Streaming", dependencies: ["QBTCore", "TorrentEngine", .product(name: "Logging", package: "swift-log")]),
        // The MP3 library served as HLS: scanning, frame indexes, segments, keys.
        .target(name: "Music", dependencies: ["SystemKit", .product(name: "GRDB", package: "GRDB.swift"), "CMP3", "CCrypto"]),
        // The tunnel for music hosts: cloudflared run as a child, its public address read from its output.
        .target(name: "Tunnel", dependencies: ["SystemKit", .product(name: "Logging", package: "swift-log")]),
        // Request bodies as clients send them: urlencoded forms and buffered multipart (no HTTP server in it, so the
        // fuzzing harnesses build without one).
        .target(name: "FormData"),
        // sendfile(2) for plain-HTTP response bodies: a marker the route writes, swapped below the HTTP encoder.
        .target(name: "FileRegions", dependencies: [.product(name: "NIOCore", package: "swift-nio")]),
        // Uploads: multipart streamed to disk, tus state, the free-space guard.
        .target(name: "Uploads", dependencies: ["SystemKit", "Store", "CCrypto", "CLinux", .product(name: "Logging", package: "swift-log")]),
        // The OpenAPI document (openapi/qbtd.yaml, written by `make openapi`), a resource copied beside the binary.
        .target(name: "OpenAPIDocument", path: "openapi", exclude: ["generate.py", "components.yaml"],
                resources: [.copy("qbtd.yaml")]),
        // The HTTP kit every room of the API stands on: the request context, the `/api/v2/<scope>/<action>` router
        // and its gate (CSRF, Host, sessions, API keys, Basic), parameters, sessions, security headers, metrics, and
        // `ErrorAnswer`, the one place an error becomes a response.
        .target(
            name: "HTTPKit",
            dependencies: [
                "QBTCore", "Store", "FormData", "FileRegions", "CZlib", "SystemKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // qBittorrent's WebAPI groups only: one controller per scope, sync/maindata's shared rows and diffs, wire types.
        .target(
            name: "WebAPI",
            dependencies: ["HTTPKit", "QBTCore", "SystemKit", "Store", "TorrentEngine", "FormData", "Search", "RSS", "Music", "HTTPFetch",
                           .product(name: "HashTreeCollections", package: "swift-collections"),
                           .product(name: "NIOCore", package: "swift-nio")]
        ),
        // `/api/v2/qbtd/*`: API keys, the routes and OpenAPI document, the preference catalogue, Torznab indexers.
        .target(name: "QbtdAPI", dependencies: ["HTTPKit", "QBTCore", "SystemKit", "Store", "Search", "OpenAPIDocument", "Cluster"]),
        // `sync/maindata` pushed: `/api/v2/qbtd/events` (Server-Sent Events) and `/api/v2/qbtd/events/ws` (WebSocket).
        .target(
            name: "PushHTTP",
            dependencies: ["HTTPKit", "WebAPI", "QBTCore",
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]
        ),
        // Stream playback over HTTP: `/api/v2/stream/*` and the `/stream/<token>` bodies (Range, sendfile).
        .target(
            name: "StreamHTTP",
            dependencies: ["HTTPKit", "Streaming", "QBTCore", "TorrentEngine", "FileRegions", "SystemKit",
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "Metrics", package: "swift-metrics")]
        ),
        // The music library over HTTP: `/music/*` (HLS), its segment fast path below the router, its WebSocket.
        .target(
            name: "MusicHTTP",
            dependencies: [
                "HTTPKit", "Music", "QBTCore", "FileRegions", "SystemKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Metrics", package: "swift-metrics"),
                // HTTP parts as Hummingbird's channels carry them, for the segments' fast path
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ]
        ),
        // Uploads over HTTP: multipart `/api/v2/upload*` and tus `/api/v2/tus`.
        .target(
            name: "UploadHTTP",
            dependencies: ["HTTPKit", "Uploads", "QBTCore", "SystemKit", "Store", "FormData",
                           .product(name: "Hummingbird", package: "hummingbird")]
        ),
        // The WebUI files: qbtd's own interface (plain HTML, CSS and JavaScript modules in `www`) or an alternative
        // WebUI folder, served by qBittorrent's rules.
        .target(
            name: "WebUI",
            dependencies: ["HTTPKit", .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "NIOPosix", package: "swift-nio")],
            resources: [.copy("www")]
        ),
        .target(
            name: "QBTServer",
            dependencies: [
                "HTTPKit", "WebAPI", "QbtdAPI", "StreamHTTP", "MusicHTTP", "UploadHTTP", "PushHTTP", "WebUI",
                "QBTCore", "SystemKit", "Search", "Streaming", "RSS", "Uploads", "Music", "Tunnel", "FileRegions", "Store", "PostgresStore",
                "Cluster", "TorrentEngine", "FormData",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .executableTarget(
            name: "qbtd",
            dependencies: ["QBTServer", "QBTCore", "HTTPKit", "Tunnel", "SystemKit", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                           .product(name: "Metrics", package: "swift-metrics"), .product(name: "Prometheus", package: "swift-prometheus")]
        ),
        // The typed client of qBittorrent's WebAPI and qbtd's extensions: no server code. Requests go through
        // libcurl (HTTPFetch), which can trust a private CA (URLSession on Linux cannot).
        .target(name: "QBTClient", dependencies: ["HTTPFetch"]),
        .executableTarget(
            name: "qbt",
            dependencies: ["QBTClient", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                           .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // libFuzzer harnesses for every parser of hostile input (`make fuzz`); an ordinary build replays inputs.
        .executableTarget(name: "qbtd-fuzz", dependencies: ["FormData", "Uploads", "Streaming", "TorrentEngine", "QBTCore",
                                                            "Music", "Search", "RSS"], path: "Fuzz/Sources"),
        // `make bench`: a full N-torrent sync/maindata encoded, over the in-memory engine (`qbtd-encode-benchmark N`).
        .target(name: "EncodingBenchmark", dependencies: ["WebAPI", "QBTCore", "SystemKit", "Store", "TorrentEngine", "MemoryEngine"],
                path: "Benchmarks/EncodingBenchmark"),
        .executableTarget(name: "qbtd-encode-benchmark", dependencies: ["EncodingBenchmark"], path: "Benchmarks/EncodingBenchmarkMain"),
        // Test-only: a server on loopback for the test targets that speak HTTP to it.
        .target(name: "ServerTestSupport", dependencies: ["QBTServer"], path: "Tests/ServerTestSupport"),
        // Test-only: the service over the in-memory engine, a temporary folder, a timeout.
        .target(name: "EngineTestSupport", dependencies: ["QBTCore", "SystemKit", "Store", "TorrentEngine", "MemoryEngine"],
                path: "Tests/EngineTestSupport"),
        .testTarget(name: "QBTClientTests", dependencies: ["QBTClient", "ServerTestSupport"]),
        .testTarget(name: "StoreTests", dependencies: ["Store", "PostgresStore", .product(name: "PostgresNIO", package: "postgres-nio")]),
        .testTarget(name: "TorrentEngineTests", dependencies: ["TorrentEngine", "EngineTestSupport"]),
        .testTarget(name: "ClusterTests", dependencies: ["Cluster", "Store", "QBTCore", "TorrentEngine"]),
        .testTarget(name: "QBTCoreTests", dependencies: ["QBTCore", "SystemKit", "Store", "TorrentEngine", "MemoryEngine", "EngineTestSupport",
                                                        .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "WebAPITests", dependencies: ["SystemKit", "HTTPKit", "WebAPI", "QbtdAPI", "StreamHTTP", "MusicHTTP", "UploadHTTP", "WebUI",
                                                       "FormData", "QBTServer", "ServerTestSupport", "QBTCore", "Store",
                                                       "MemoryEngine", "EncodingBenchmark",
                                                       "TorrentEngine", "EngineTestSupport",
                                                       .product(name: "NIOCore", package: "swift-nio")]),
        .testTarget(name: "SearchTests", dependencies: ["Search"]),
        .testTarget(name: "RSSTests", dependencies: ["RSS", "QBTCore", "Store", "EngineTestSupport"]),
        .testTarget(name: "StreamingTests", dependencies: ["Streaming", "QBTCore", "Store", "TorrentEngine", "MemoryEngine",
                                                          "EngineTestSupport"]),
        .testTarget(name: "UploadsTests", dependencies: ["Uploads", "Store"]),
        .testTarget(name: "FileRegionsTests", dependencies: ["FileRegions", .product(name: "NIOCore", package: "swift-nio"),
                                                              .product(name: "NIOEmbedded", package: "swift-nio")]),
        .testTarget(name: "MusicTests", dependencies: ["Music"]),
        .testTarget(name: "TunnelTests", dependencies: ["Tunnel"]),
    ],
    cxxLanguageStandard: .cxx17
)
