import Foundation
import QBTClient

/// `~/.config/qbt/config.json` (or `$QBT_CONFIG`): named servers and the default one, readable by the user alone,
/// since it holds session cookies and API keys.
struct Config: Codable {
    struct Server: Codable {
        var url: String
        var username: String?
        var credential: Credential
        /// The API key `/music` takes (made by `qbt music key`).
        var musicKey: String?
        /// The PEM file of CA certificates this server's HTTPS certificate is checked against (`--ca-cert`).
        var caCert: String?
    }

    var defaultServer: String?
    var servers: [String: Server] = [:]

    static var path: URL {
        let env = ProcessInfo.processInfo.environment
        if let explicit = env["QBT_CONFIG"], !explicit.isEmpty { return URL(fileURLWithPath: explicit) }
        let base = env["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (FileManager.default.homeDirectoryForCurrentUser.path + "/.config")
        return URL(fileURLWithPath: base).appendingPathComponent("qbt/config.json")
    }

    static func load() throws -> Config {
        guard let data = try? Data(contentsOf: path) else { return Config() }
        do { return try JSONDecoder().decode(Config.self, from: data) } catch {
            throw QBTClientError.invalidInput("\(path.path) is not a qbt config file (\(error)): fix or remove it")
        }
    }

    func save() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try writePrivately(try encoder.encode(self), to: Config.path)
    }
}

/// Written to a temp file created 0600 and renamed, so no reader ever sees a half file or a wider mode; the folder
/// is the user's alone too (it holds session cookies and API keys).
func writePrivately(_ data: Data, to path: URL) throws {
    try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true,
                                            attributes: [.posixPermissions: 0o700])
    let temp = path.path + ".tmp-\(getpid())"  // two qbt processes saving at once must not share a temp file
    let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { throw QBTClientError.invalidInput("cannot write \(temp): \(String(cString: strerror(errno)))") }
    fchmod(fd, 0o600)
    let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    guard written == data.count, rename(temp, path.path) == 0 else {
        throw QBTClientError.invalidInput("cannot write \(path.path): \(String(cString: strerror(errno)))")
    }
}
