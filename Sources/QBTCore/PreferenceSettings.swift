import Foundation
import Store
import TorrentEngine

/// Turns stored qBittorrent preferences into engine settings. Start-up flags then override what they name
/// (`--no-discovery` wins over a stored `dht: true`, `--peer-listen` over `listen_port`).
public enum PreferenceSettings {
    public static func apply(_ stored: [String: JSONValue], to base: EngineSettings) -> EngineSettings {
        var s = base
        if let v = stored["dht"]?.boolValue { s.dht = v }
        if let v = stored["lsd"]?.boolValue { s.lsd = v }
        if let v = stored["pex"]?.boolValue { s.pex = v }
        if let v = stored["upnp"]?.boolValue { s.upnp = v; s.natpmp = v }
        if let v = stored["dl_limit"]?.intValue { s.downloadRateLimit = max(0, Int(v)) }
        if let v = stored["up_limit"]?.intValue { s.uploadRateLimit = max(0, Int(v)) }
        // qBittorrent's bittorrent_protocol: 0 = TCP and uTP, 1 = TCP, 2 = uTP.
        if let v = stored["bittorrent_protocol"]?.intValue { s.utp = v != 1 }
        if let port = stored["listen_port"]?.intValue, (1...65535).contains(port) {
            s.listenInterfaces = "0.0.0.0:\(port),[::]:\(port)"
        }
        return s
    }

    /// The stored preferences, decoded (unreadable values are skipped).
    public static func load(from store: Store) async throws -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        for (key, json) in try await store.preferences() {
            if let value = try? JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)) { out[key] = value }
        }
        return out
    }
}
