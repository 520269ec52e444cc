import Foundation
import QBTCore
import TorrentEngine

/// Everything `qbtd` can be told at start; each field has a flag and a `QBTD_*` environment variable.
public struct ServerConfiguration: Sendable {
    public var dataDirectory: String
    public var downloadDirectory: String?
    public var host = "127.0.0.1"
    public var port = 8080
    public var username: String?
    public var password: String?
    /// Where libtorrent listens for peers, `HOST:PORT`.
    public var peerListen = "0.0.0.0:6881"
    public var discovery = true
    public var utp = true
    public var resumeInterval: Duration = .seconds(15)

    public init(dataDirectory: String) { self.dataDirectory = dataDirectory }

    /// `$XDG_DATA_HOME/qbtd`, else `~/.local/share/qbtd`.
    public static var defaultDataDirectory: String {
        let env = ProcessInfo.processInfo.environment
        if let xdg = env["XDG_DATA_HOME"], !xdg.isEmpty { return xdg + "/qbtd" }
        return (env["HOME"] ?? FileManager.default.currentDirectoryPath) + "/.local/share/qbtd"
    }

    public var engineSettings: EngineSettings {
        var s = EngineSettings()
        s.listenInterfaces = Self.listenInterfaces(peerListen)
        if !discovery { s.disableDiscovery() }
        s.utp = utp
        return s
    }

    /// `HOST:PORT` to libtorrent's form (IPv6 hosts in brackets); `0.0.0.0` also opens `[::]`.
    static func listenInterfaces(_ value: String) -> String {
        if value.hasPrefix("0.0.0.0:") { return value + ",[::]:" + value.dropFirst("0.0.0.0:".count) }
        return value
    }
}
