import ArgumentParser
import Foundation
import QBTClient

/// Options every command takes: which server, and JSON output for scripts.
struct GlobalOptions: ParsableArguments {
    @Option(name: .customLong("server"), help: ArgumentHelp("A server saved by `qbt login --name` (default: the default one).", valueName: "name"))
    var serverName: String?

    @Option(help: ArgumentHelp("Talk to this URL instead (or QBT_URL), with QBT_USERNAME/QBT_PASSWORD or QBT_API_KEY.", valueName: "url"))
    var url: String?

    @Flag(help: "Print JSON for scripts instead of tables.")
    var json = false

    @Option(name: .customLong("ca-cert"), help: ArgumentHelp("Check the server's HTTPS certificate against the CA certificates in this PEM file instead of the system's (or QBT_CA_CERT; `qbt login --ca-cert` saves it).", valueName: "file"))
    var caCert: String?

    /// The CA file: the option, QBT_CA_CERT, else the one saved with the server.
    func caFile(_ saved: Config.Server?) -> String? {
        caCert ?? ProcessInfo.processInfo.environment["QBT_CA_CERT"].flatMap { $0.isEmpty ? nil : $0 } ?? saved?.caCert
    }

    /// Which server: `--url`/QBT_URL (with the saved entry of that URL, if any), else a saved one by name.
    func server() throws -> (base: URL, name: String?, saved: Config.Server?, explicit: Bool) {
        let env = ProcessInfo.processInfo.environment
        let config = try Config.load()
        if let text = url ?? env["QBT_URL"].flatMap({ $0.isEmpty ? nil : $0 }) {
            let base = try QBTClient.parseURL(text)
            let match = config.servers.first { $0.value.url == base.absoluteString }
            return (base, match?.key, match?.value, true)
        }
        let name = serverName ?? env["QBT_SERVER"].flatMap { $0.isEmpty ? nil : $0 } ?? config.defaultServer
        guard let name, let saved = config.servers[name] else { throw QBTClientError.notLoggedIn(server: serverName) }
        return (try QBTClient.parseURL(saved.url), name, saved, false)
    }

    /// A logged-in client: an explicit URL with credentials from the environment, or a saved server.
    func client() async throws -> QBTClient {
        let env = ProcessInfo.processInfo.environment
        let server = try server()
        let ca = caFile(server.saved)
        if server.explicit {
            if let key = env["QBT_API_KEY"], !key.isEmpty { return QBTClient(baseURL: server.base, credential: .apiKey(key), caFile: ca) }
            if let password = env["QBT_PASSWORD"] {
                let client = QBTClient(baseURL: server.base, caFile: ca)
                try await client.login(username: env["QBT_USERNAME"] ?? "admin", password: password)
                return client
            }
            // A saved session for the same server still works.
            return QBTClient(baseURL: server.base, credential: server.saved?.credential ?? .none, caFile: ca)
        }
        guard let name = server.name, let saved = server.saved else { throw QBTClientError.notLoggedIn(server: serverName) }
        let client = QBTClient(baseURL: server.base, credential: saved.credential, caFile: ca)
        // A session that expired is renewed from the environment's password when there is one.
        if case .cookie = saved.credential, let password = env["QBT_PASSWORD"] {
            let probe = try await client.send("app/version")
            if probe.status == 403 {
                try await client.login(username: saved.username ?? env["QBT_USERNAME"] ?? "admin", password: password)
                var config = try Config.load()
                config.servers[name]?.credential = await client.credential
                try config.save()
            }
        }
        return client
    }
}

/// Hashes as a person types them: whole, unique prefixes, or `all`.
struct HashArguments: ParsableArguments {
    @Argument(help: ArgumentHelp("Torrent hashes, unique prefixes of them, or `all`.", valueName: "hash"))
    var hashes: [String]  // ArgumentParser asks for at least one
}

/// `1M`, `500K`, `2.5MiB`, `0`, `unlimited`: bytes per second (qBittorrent's 0 and -1 both mean unlimited).
func parseRate(_ text: String) throws -> Int64 {
    let t = text.lowercased().replacingOccurrences(of: "/s", with: "").replacingOccurrences(of: "ib", with: "")
        .replacingOccurrences(of: "b", with: "")
    if t == "unlimited" || t == "inf" || t == "-1" { return 0 }
    let units: [Character: Double] = ["k": 1024, "m": 1024 * 1024, "g": 1024 * 1024 * 1024]
    var number = t, factor = 1.0
    if let last = t.last, let unit = units[last] { number = String(t.dropLast()); factor = unit }
    guard let value = Double(number), value >= 0, value * factor < 9e15 else {
        throw ValidationError("not a rate: \(text) (e.g. 500K, 2M, 0 for unlimited)")
    }
    return Int64(value * factor)
}
