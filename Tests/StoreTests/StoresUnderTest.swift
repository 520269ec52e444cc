import Foundation
import Logging
import PostgresNIO
import PostgresStore
import Store
import XCTest

/// The two stores the store's tests run on. Each `open` opens the same backing data again (a restart).
struct StoreUnderTest {
    let name: String
    let open: () async throws -> any Store
}

/// The throwaway PostgreSQL cluster `make test` starts (`Tests/postgres/throwaway-cluster.sh`); a `swift test` run
/// without it starts it itself. Each test gets a database of its own.
enum TestPostgres {
    static let logger = Logger(label: "qbtd.store-tests")

    /// The cluster's URL (to its `postgres` database).
    static func clusterURL() throws -> String {
        if let url = ProcessInfo.processInfo.environment["QBTD_TEST_POSTGRES_URL"], !url.isEmpty { return url }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../postgres/throwaway-cluster.sh").standardizedFileURL.path
        // No pipe to wait on: the server the script starts outlives it. The URL is left in a file.
        let root = ProcessInfo.processInfo.environment["QBTD_PG_ROOT"] ?? "/tmp/qbtd-postgres"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script, "start"]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let text = try? String(contentsOfFile: root + "/url", encoding: .utf8) else {
            throw StoreError.badLocation("the tests' PostgreSQL did not start: run \(script) start to see why")
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A new, empty database in the cluster, as a URL.
    static func freshDatabase() async throws -> String {
        let base = try clusterURL()
        guard var url = URLComponents(string: base), let host = url.host else { throw StoreError.badLocation(base) }
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let configuration = PostgresConnection.Configuration(host: host, port: url.port ?? 5432, username: url.user ?? "qbtd",
                                                             password: url.password, database: "postgres", tls: .disable)
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        do {
            try await connection.query("CREATE DATABASE \(unescaped: name)", logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
        url.path = "/" + name
        return url.string!
    }
}

extension XCTestCase {
    /// Runs `body` once on a new SQLite file and once on a new PostgreSQL database (as node "n1"); the stores it
    /// opened are closed after.
    func onEachStore(_ body: (StoreUnderTest) async throws -> Void) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("qbtd.sqlite").path
        try await body(StoreUnderTest(name: "SQLite", open: { try SQLiteStore(path: path) }))

        let database = try await TestPostgres.freshDatabase()
        let opened = OpenedStores()
        do {
            try await body(StoreUnderTest(name: "PostgreSQL", open: {
                let store = try await PostgresStore(url: database, node: "n1", logger: TestPostgres.logger)
                opened.add(store)
                return store
            }))
        } catch {
            opened.closeAll()
            throw error
        }
        opened.closeAll()
    }
}

/// The PostgreSQL stores a test opened, to close after it.
final class OpenedStores: @unchecked Sendable {
    private let lock = NSLock()
    private var stores: [PostgresStore] = []
    func add(_ store: PostgresStore) { lock.withLock { stores.append(store) } }
    func closeAll() { lock.withLock { stores.forEach { $0.close() }; stores = [] } }
}
