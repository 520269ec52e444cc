import Foundation
import HTTPKit
import Music
import QBTCore
import Store
import TorrentEngine

/// `/api/v2/app/*`: identity, build facts, preferences, network interfaces, shutdown and API keys.
public struct AppController: APIController {
    public let scope = "app"
    let identity: Identity
    let service: TorrentService
    let credentials: Credentials
    let keys: APIKeyRing
    let sessions: SessionManager
    let gate: WebGate
    let webUI: (address: String, port: Int)
    let onShutdown: @Sendable () -> Void
    let https: any WebHTTPSSwitch
    let preferenceWrites = SerialRunner()
    let music: MusicLibrary
    /// The music folders came from the command line, which wins over the `music_dirs` preference.
    let musicFromCommandLine: Bool

    public init(identity: Identity, service: TorrentService, credentials: Credentials, keys: APIKeyRing,
                sessions: SessionManager, gate: WebGate, webUI: (address: String, port: Int),
                music: MusicLibrary, musicFromCommandLine: Bool, https: any WebHTTPSSwitch,
                onShutdown: @escaping @Sendable () -> Void) {
        self.https = https
        self.music = music
        self.musicFromCommandLine = musicFromCommandLine
        self.identity = identity
        self.service = service
        self.credentials = credentials
        self.keys = keys
        self.sessions = sessions
        self.gate = gate
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
            "defaultSavePath": .get { _, _ in .text(await service.settings.defaultSavePath) },
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
            // qBittorrent answers at once and mails in the background (only while notifications are on).
            "sendTestEmail": .post { _, _ in
                await service.sendTestMail()
                return .empty
            },
            "cookies": .get { _, _ in .json(await service.settings.value("qbtd_cookies") ?? .array([])) },
            "setCookies": .post { p, _ in
                guard let data = p["cookies"]?.data(using: .utf8),
                      let value = try? JSONDecoder().decode(JSONValue.self, from: data), case .array = value
                else { throw QBitError.badParams() }
                try await service.settings.setPrivate("qbtd_cookies", value)
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
        let settings = service.settings
        var values = await settings.values
        let engine = await settings.engineSettings()
        values["listen_port"] = .int(Int64(await service.engine.listenPort))
        values["web_ui_address"] = .string(webUI.address)
        values["web_ui_port"] = .int(Int64(webUI.port))
        values["web_ui_username"] = .string(await credentials.username)
        values["dht"] = .bool(engine.dht)
        values["pex"] = .bool(engine.pex)
        values["lsd"] = .bool(engine.lsd)
        values["upnp"] = .bool(engine.upnp)
        values["save_path"] = .string(await settings.defaultSavePath)
        values["music_dirs"] = .array(await music.directories.map { .string($0) })  // qbtd's: the HLS music folders
        values["add_trackers_url_list"] = .string(await service.extraTrackerList)  // read-only: the list last fetched
        if let files = https.commandLine {  // the command line's certificate is what is served
            values["use_https"] = .bool(true)
            values["web_ui_https_cert_path"] = .string(files.certificate)
            values["web_ui_https_key_path"] = .string(files.key)
        }
        // The profile's keys, as the catalogue lists them; a 4.x spelling reports its 5.x key's value.
        let reported = PreferenceCatalogue.keys(reportedBy: identity.profile)
        for entry in PreferenceCatalogue.entries where reported.contains(entry.key) {
            if let alias = entry.alias { values[entry.key] = values[alias] }
        }
        return values.filter { reported.contains($0.key) }
    }

    func setPreferences(_ p: Parameters) async throws -> APIReply {
        let text = try p.required("json")
        // qBittorrent reads JSON that is not an object (or not JSON) as an empty change set: 200, nothing set.
        var changes: [String: JSONValue] = [:]
        if let data = text.data(using: .utf8), case .object(let parsed)? = try? JSONDecoder().decode(JSONValue.self, from: data) {
            changes = parsed
        }
        // The 4.x spelling of the same switch.
        if let paused = changes.removeValue(forKey: "start_paused_enabled"), changes["add_stopped_enabled"] == nil {
            changes["add_stopped_enabled"] = paused
        }
        if case .string(let password)? = changes.removeValue(forKey: "web_ui_password"), !password.isEmpty {
            try await credentials.setPassword(password)
        }
        if case .string(let name)? = changes.removeValue(forKey: "web_ui_username"), !name.isEmpty {
            try await credentials.setUsername(name)
        }
        if case .array(let list)? = changes.removeValue(forKey: "music_dirs") {
            try await setMusicDirectories(list.compactMap(\.stringValue))
        }
        // The WebUI's own address and port come from the command line; changing them needs a restart.
        changes["web_ui_address"] = nil
        changes["web_ui_port"] = nil
        for refused in await service.settings.refusedChanges(changes) {
            service.log.add("\(refused.key) not changed: \(refused.reason)", kind: .warning)
        }
        try await switchHTTPS(&changes)
        try await service.applyPreferences(changes)
        let now = await service.settings.values
        let policy = WebSecurityPolicy(now)
        if changes["web_ui_custom_http_headers"] != nil || changes["web_ui_use_custom_http_headers_enabled"] != nil,
           now["web_ui_use_custom_http_headers_enabled"]?.boolValue == true {
            for line in WebSecurityPolicy.headerLines(now["web_ui_custom_http_headers"]?.stringValue ?? "").skipped {
                service.log.add("Missing ':' separator in WebUI custom HTTP header: \"\(line)\"", kind: .warning)
            }
        }
        gate.update(policy)
        await sessions.setPolicy(policy.sessions)
        return .empty
    }

    /// qBittorrent restarts its web server when the HTTPS settings change; qbtd checks the certificate and key
    /// first and switches new connections (`WebHTTPSSwitch`). A refused change leaves the three keys out, so
    /// `app/preferences` goes on saying what is served.
    func switchHTTPS(_ changes: inout [String: JSONValue]) async throws {
        let keys = ["use_https", "web_ui_https_cert_path", "web_ui_https_key_path"]
        guard keys.contains(where: { changes[$0] != nil }) else { return }
        let now = await service.settings.values
        // A value of the wrong type is no change, as ServerSettings will not store it either.
        func pick(_ key: String) -> JSONValue? {
            changes[key].flatMap { raw in now[key].flatMap { ServerSettings.coerce(raw, like: $0) } } ?? now[key]
        }
        let taken = await https.apply(HTTPSRequest(
            enabled: pick("use_https")?.boolValue ?? false,
            certificate: pick("web_ui_https_cert_path")?.stringValue ?? "",
            key: pick("web_ui_https_key_path")?.stringValue ?? ""))
        if !taken { for key in keys { changes[key] = nil } }
    }

    /// qbtd's `music_dirs`: existing folders only; kept across restarts; a scan follows at once.
    func setMusicDirectories(_ requested: [String]) async throws {
        // Clients send the whole preferences object back: the same list again is no change (and no rescan).
        guard requested != (await music.directories) else { return }
        guard !musicFromCommandLine else {
            service.log.add("music_dirs not changed: the music folders come from --music-dir / QBTD_MUSIC_DIRS", kind: .warning)
            return
        }
        var dirs: [String] = []
        for path in requested {
            guard path.hasPrefix("/") else {
                service.log.add("music_dirs: \(path) is not an absolute path, left out", kind: .warning)
                continue
            }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue { dirs.append(path) }
            else { service.log.add("music_dirs: \(path) is not a folder, left out", kind: .warning) }
        }
        try await service.settings.setPrivate(Self.musicDirsKey, .array(dirs.map { .string($0) }))
        await music.setDirectories(dirs)
        Task { await music.scan() }
    }

    public static let musicDirsKey = "qbtd_music_dirs"

    /// 5.0's directory browser, confined to the download root.
    func directoryContent(_ p: Parameters) throws -> APIReply {
        let dir = try p.required("dirPath")
        guard dir.hasPrefix("/") else { throw QBitError.badParams("Path must be absolute") }
        let mode = p["mode"] ?? "all"
        guard ["all", "dirs", "files"].contains(mode) else { throw QBitError.badParams("Invalid mode") }
        guard let path = try? service.paths.savePath(dir) else { throw QBitError.notFound("Path does not exist") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw QBitError.notFound("Path does not exist")
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        let out = names.sorted().compactMap { name -> JSONValue? in
            var isDir: ObjCBool = false
            FileManager.default.fileExists(atPath: path + "/" + name, isDirectory: &isDir)
            if mode == "dirs" && !isDir.boolValue || mode == "files" && isDir.boolValue { return nil }
            return .string(path + "/" + name)
        }
        return .json(.array(out))
    }
}
