import Foundation
import HTTPKit
import Music
import QBTCore
import Store
import SystemKit
import TorrentEngine

/// `/api/v2/app/*`: identity, build facts, preferences, network interfaces, shutdown and API keys.
public struct AppController: APIController {
    public let scope = "app"
    let identity: Identity
    let service: TorrentService
    let settings: ServerSettings
    let credentials: Credentials
    let keys: APIKeyRing
    let webUI: (address: String, port: Int)
    let onShutdown: @Sendable () -> Void
    let https: any WebHTTPSSwitch
    let preferenceWrites = SerialRunner()
    let music: MusicLibrary

    public init(identity: Identity, service: TorrentService, settings: ServerSettings, credentials: Credentials, keys: APIKeyRing,
                webUI: (address: String, port: Int), music: MusicLibrary, https: any WebHTTPSSwitch,
                onShutdown: @escaping @Sendable () -> Void) {
        self.https = https
        self.music = music
        self.identity = identity
        self.service = service
        self.settings = settings
        self.credentials = credentials
        self.keys = keys
        self.webUI = webUI
        self.onShutdown = onShutdown
    }

    public var actions: [String: APIAction] {
        [
            "version": .get { _, _ in .text(identity.appVersion) },
            "webapiVersion": .get { _, _ in .text(identity.webAPIVersion) },
            "buildInfo": .get { _, _ in
                // No Qt or zlib of our own; clients only display these.
                try .encode(BuildInfo(qt: "none", libtorrent: LibraryVersions.libtorrent, boost: LibraryVersions.boost,
                                      openssl: LibraryVersions.openssl, zlib: "none",
                                      bitness: MemoryLayout<Int>.size * 8,
                                      platform: identity.profile == .v4_6 ? nil : Self.platform))  // 5.0 added it
            },
            "shutdown": .post { _, _ in
                onShutdown()
                return .empty
            },
            "defaultSavePath": .get { _, _ in .text(settings.defaultSavePath) },
            "preferences": .get { _, _ in .json(.object(await preferences())) },
            // One at a time: the HTTPS switch and the stored preferences must agree (qBittorrent is single-threaded).
            "setPreferences": .post { p, _ in try await preferenceWrites.run { try await setPreferences(p) } },
            "networkInterfaceList": .get { _, _ in
                .json(.array(NetworkInterfaces.names().map { .object(["name": .string($0), "value": .string($0)]) }))
            },
            "networkInterfaceAddressList": .get { p, _ in
                .json(.array(NetworkInterfaces.addresses(of: try p.required("iface")).map { .string($0) }))
            },
            "getDirectoryContent": .get { p, _ in try directoryContent(p) },
            // 5.3: free bytes where the path is, or where its nearest existing ancestor is (a folder made on demand).
            "getFreeSpaceAtPath": .get { p, _ in .text(String(Self.freeSpace(at: try p.required("path")))) }.since(.v5_3),
            // qBittorrent answers at once and mails in the background (only while notifications are on).
            "sendTestEmail": .post { _, _ in
                await service.session.sendTestMail()
                return .empty
            },
            "cookies": .get { _, _ in .json(await settings.state(.cookies) ?? .array([])) },
            "setCookies": .post { p, _ in
                guard let data = p["cookies"]?.data(using: .utf8),
                      let value = try? JSONDecoder().decode(JSONValue.self, from: data), case .array = value
                else { throw QBitError.badParams() }
                try await settings.setState(.cookies, value)
                return .empty
            },
            "rotateAPIKey": .post { _, _ in
                let created = try await keys.rotateDefault()
                return .json(.object(["apiKey": .string(created.key)]))
            },
            "deleteAPIKey": .post { _, _ in
                try await keys.revokeDefault()
                return .done
            },
            "processInfo": .get { _, _ in .json(.object(["launch_time": .int(Self.launchTime)])) },
        ]
    }

    static let launchTime = Int64(Date().timeIntervalSince1970)

    static var platform: String {
        #if os(Linux)
        "linux"
        #elseif os(macOS)
        "macos"
        #else
        "unknown"
        #endif
    }

    /// The stored preferences, with what the running server actually uses laid over them.
    func preferences() async -> [String: JSONValue] {
        var values = settings.values
        let engine = settings.engineSettings()
        // A cluster's nodes each listen where they were told to (`qbtd/nodes` lists where): the cluster's preferences
        // stand, the same whichever node answers.
        if identity.node == nil {
            values[\.listenPort] = await service.session.listenPort
            values[\.webUIAddress] = webUI.address
        }
        values[\.webUIPort] = webUI.port
        values[\.webUIUsername] = await credentials.username
        values[\.dht] = engine.dht
        values[\.pex] = engine.pex
        values[\.lsd] = engine.lsd
        values[\.upnp] = engine.upnp
        values[\.savePath] = settings.defaultSavePath
        values[\.musicDirs] = await music.directories.map { .string($0) }  // qbtd's: the HLS music folders
        values[\.addTrackersURLList] = await service.sources.extraTrackerList  // read-only: the list last fetched
        if let files = https.commandLine {  // the command line's certificate is what is served
            values[\.useHTTPS] = true
            values[\.webUIHTTPSCertPath] = files.certificate
            values[\.webUIHTTPSKeyPath] = files.key
        }
        // The profile's keys, as the catalogue lists them; a 4.x spelling reports its 5.x key's value.
        let reported = PreferenceCatalogue.keys(reportedBy: identity.profile)
        for entry in PreferenceCatalogue.entries where reported.contains(entry.key) {
            if let alias = entry.alias { values[entry.key] = values[alias] }
        }
        return values.filter { reported.contains($0.key) }
    }

    /// Checks and stores the changes and reports the ones refused; the components that apply them (the engine, the
    /// WebUI's security, HTTPS, the login, the music folders, RSS…) are `ServerSettings` handlers, all run before
    /// `update` returns, so every effect is in place when this answers.
    func setPreferences(_ p: Parameters) async throws -> APIReply {
        let text = try p.required("json")
        // qBittorrent reads JSON that is not an object (or not JSON) as an empty change set: 200, nothing set.
        var changes: [String: JSONValue] = [:]
        if let data = text.data(using: .utf8), case .object(let parsed)? = try? JSONDecoder().decode(JSONValue.self, from: data) {
            changes = parsed
        }
        // The WebUI's own address and port come from the command line; changing them needs a restart.
        changes[\.webUIAddress] = nil
        changes[\.webUIPort] = nil
        for refused in settings.refusedChanges(changes) {
            service.log.add("\(refused.key) not changed: \(refused.reason)", kind: .warning)
        }
        try await settings.update(changes)
        return .empty
    }

    /// 5.0's directory browser, confined to the download root.
    /// qBittorrent's listing: QDir's filters, so neither `.`/`..` nor hidden entries nor sockets and devices; from 5.2
    /// `withMetadata` gives objects (name, type, size of a file, three dates) instead of paths.
    func directoryContent(_ p: Parameters) throws -> APIReply {
        let dir = try p.required("dirPath")
        guard dir.hasPrefix("/") else { throw QBitError.badParams("Invalid directory path") }
        let mode = p["mode"] ?? "all"
        guard ["all", "dirs", "files"].contains(mode) else {
            throw QBitError.badParams("Invalid mode, allowed values: all, dirs, files")
        }
        guard let path = try? settings.paths.savePath(dir) else { throw QBitError.notFound("Directory does not exist") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw QBitError.notFound("Directory does not exist")
        }
        let withMetadata = identity.profile >= .v5_2 && p.bool("withMetadata") == true
        let base = path.hasSuffix("/") ? path : path + "/"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        let out = names.sorted().compactMap { name -> JSONValue? in
            guard !name.hasPrefix(".") else { return nil }
            var info = stat()
            guard stat(base + name, &info) == 0 else { return nil }
            let kind = info.st_mode & S_IFMT
            let isDir = kind == S_IFDIR
            guard isDir || kind == S_IFREG else { return nil }
            if mode == "dirs" && !isDir || mode == "files" && isDir { return nil }
            guard withMetadata else { return .string(base + name) }
            var o: [String: JSONValue] = [
                "name": .string(name), "type": .string(isDir ? "dir" : "file"),
                "creation_date": .int(Int64(info.st_ctim.tv_sec)), "last_access_date": .int(Int64(info.st_atim.tv_sec)),
                "last_modification_date": .int(Int64(info.st_mtim.tv_sec)),
            ]
            if !isDir { o["size"] = .int(Int64(info.st_size)) }
            return .object(o)
        }
        return .json(.array(out))
    }

    /// -1 when neither the path nor any ancestor can be asked (as qBittorrent's `freeDiskSpaceOnPath`).
    static func freeSpace(at path: String) -> Int64 {
        var current = path
        while !current.isEmpty {
            if let free = DiskSpace.available(at: current) { return free }
            let parent = (current as NSString).deletingLastPathComponent
            if parent == current { break }
            current = parent
        }
        return -1
    }
}
