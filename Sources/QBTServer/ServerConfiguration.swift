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
    /// Where libtorrent listens for peers, `HOST:PORT`; nil keeps the stored `listen_port` (default 6881).
    public var peerListen: String?
    /// false forces DHT, LSD, PeX, UPnP and NAT-PMP off, whatever the preferences say.
    public var discovery = true
    /// false forces uTP off.
    public var utp = true
    public var resumeInterval: Duration = .seconds(15)

    public init(dataDirectory: String) { self.dataDirectory = dataDirectory }

    /// `$XDG_DATA_HOME/qbtd`, else `~/.local/share/qbtd`.
    public static var defaultDataDirectory: String {
        let env = ProcessInfo.processInfo.environment
        if let xdg = env["XDG_DATA_HOME"], !xdg.isEmpty { return xdg + "/qbtd" }
        return (env["HOME"] ?? FileManager.default.currentDirectoryPath) + "/.local/share/qbtd"
    }

    /// The engine settings: defaults, then the stored preferences, then what was given at start.
    public func engineSettings(preferences: [String: JSONValue]) -> EngineSettings {
        var s = EngineSettings()
        s.listenInterfaces = "0.0.0.0:6881,[::]:6881"
        s = PreferenceSettings.apply(preferences, to: s)
        if let peerListen { s.listenInterfaces = Self.listenInterfaces(peerListen) }
        if !discovery { s.disableDiscovery() }
        if !utp { s.utp = false }
        return s
    }

    /// `HOST:PORT` to libtorrent's form (IPv6 hosts in brackets); `0.0.0.0` also opens `[::]`.
    static func listenInterfaces(_ value: String) -> String {
        if value.hasPrefix("0.0.0.0:") { return value + ",[::]:" + value.dropFirst("0.0.0.0:".count) }
        return value
    }
}
