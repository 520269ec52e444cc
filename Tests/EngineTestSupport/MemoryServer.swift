import Foundation
import MemoryEngine
import QBTCore
import Store
import SystemKit
import TorrentEngine

/// Test-only: a `TorrentService` over the in-memory engine and a real SQLite file in a temporary folder, for the
/// tests that need qBittorrent's semantics but no swarm.
public struct MemoryServer: Sendable {
    public let service: TorrentService
    public let engine: MemoryEngine
    public let store: any Store
    public let settings: ServerSettings

    /// A service in `directory` (made if missing); `store` reuses an open database (a restart).
    public static func start(in directory: URL, store existing: (any Store)? = nil,
                             engine: MemoryEngine = MemoryEngine()) async throws -> MemoryServer {
        let paths = try ServerPaths(dataDirectory: directory.path)
        let store = try existing ?? SQLiteStore(path: paths.databasePath)
        let settings = try await ServerSettings(store: store, paths: paths)
        let service = try await TorrentService(settings: settings, store: store, engine: engine)
        return MemoryServer(service: service, engine: engine, store: store, settings: settings)
    }

    /// A magnet with the n-th info-hash and the name `t<n>`, parsed.
    public static func magnet(_ n: Int) -> ParsedTorrent {
        try! ParsedTorrent(.magnet("magnet:?xt=urn:btih:\(String(format: "%040x", n))&dn=t\(n)"))
    }
}

/// A fresh temporary folder for one test; remove it in tearDown.
public func temporaryFolder(_ prefix: String) throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}

/// `body`'s value, or an error after `seconds`: no test waits for ever.
public func withTimeout<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            throw EngineError.failed("timed out after \(seconds)s")
        }
        let value = try await group.next()!
        group.cancelAll()
        return value
    }
}
