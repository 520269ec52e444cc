import Foundation
import QBTCore
import Store
import TorrentEngine

/// `/api/v2/app/*`: identity, build facts, the default save path and the preferences.
public struct AppController: APIController {
    public let scope = "app"
    let identity: Identity
    let service: TorrentService
    let credentials: Credentials
    let engineSettings: EngineSettings
    let webUI: (address: String, port: Int)

    public init(identity: Identity, service: TorrentService, credentials: Credentials, engineSettings: EngineSettings,
                webUI: (address: String, port: Int)) {
        self.identity = identity
        self.service = service
        self.credentials = credentials
        self.engineSettings = engineSettings
        self.webUI = webUI
    }

    public var actions: [String: APIAction] {
        [
            "version": .get { _, _ in .text(identity.appVersion) },
            "webapiVersion": .get { _, _ in .text(identity.webAPIVersion) },
            "buildInfo": .get { _, _ in
                // No Qt here; clients only display these.
                try .encode(BuildInfo(qt: "none", libtorrent: LibraryVersions.libtorrent, boost: LibraryVersions.boost,
                                      openssl: LibraryVersions.openssl, zlib: "none",
                                      bitness: MemoryLayout<Int>.size * 8, platform: Self.platform))
            },
            "defaultSavePath": .get { _, _ in .text(service.paths.downloadRoot) },
            "preferences": .get { _, _ in try await preferences() },
        ]
    }

    static var platform: String {
        #if os(Linux)
        "linux"
        #elseif os(macOS)
        "macos"
        #else
        "unknown"
        #endif
    }

    func preferences() async throws -> APIReply {
        var values = PreferenceDefaults.values(
            paths: service.paths, engine: engineSettings, listenPort: await service.engine.listenPort,
            username: await credentials.username, webUI: webUI)
        // Stored preferences overlay the defaults; secrets stay out of the answer.
        for (key, value) in try await PreferenceSettings.load(from: service.store) where key != Credentials.passwordKey {
            values[key] = value
        }
        return try .encode(values)
    }
}
