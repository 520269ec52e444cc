import Foundation
import PostgresStore
import Store
import XCTest

/// What only a cluster's store does: nodes that start together, torrents and uploads owned by one node, a catalogue
/// every node shares.
final class PostgresStoreTests: XCTestCase {
    func testNodesStartingTogetherMigrateOnce() async throws {
        let url = try await TestPostgres.freshDatabase()
        let stores = try await withThrowingTaskGroup(of: PostgresStore.self) { group in
            for n in 1...4 { group.addTask { try await PostgresStore(url: url, node: "n\(n)", logger: TestPostgres.logger) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        defer { stores.forEach { $0.close() } }
        for store in stores {
            let applied = try await store.appliedMigrations()
            XCTAssertEqual(applied, ["pg1: the catalogue and its nodes",
                                     "pg2: the global limits divided between the nodes, each node's lease, categories pinned to nodes, shared sessions",
                                     "pg3: torrents moving between nodes",
                                     "pg4: the nodes' transfer totals"])
        }
    }

    func testEachNodeRestartsWithItsOwnTorrentsAndSharesTheCatalogue() async throws {
        let url = try await TestPostgres.freshDatabase()
        let a = try await PostgresStore(url: url, node: "a", logger: TestPostgres.logger)
        let b = try await PostgresStore(url: url, node: "b", logger: TestPostgres.logger)
        defer { a.close(); b.close() }
        func record(_ id: String, category: String? = nil) -> TorrentRecord {
            TorrentRecord(id: id, name: "n-\(id)", metainfo: Data([1]), magnet: nil, savePath: "/srv", category: category)
        }
        try await a.insert(record("1", category: "films"), tags: ["hd"])
        try await b.insert(record("2", category: "music"), tags: [])
        // The same info hash on the other node is refused: a torrent has one owner.
        do { try await b.insert(record("1"), tags: []); XCTFail("a second node took the same torrent") } catch {}
        let ownA = try await a.torrentsWithoutSources().map(\.record.id)
        let ownB = try await b.torrents().map(\.record.id)
        XCTAssertEqual(ownA, ["1"])
        XCTAssertEqual(ownB, ["2"])
        // Any node reads any torrent, and the catalogue is one.
        let fromB = try await b.torrent("1")
        XCTAssertEqual(fromB?.tags, ["hd"])
        let categories = try await a.categories().map(\.name)
        XCTAssertEqual(categories, ["films", "music"])
        try await b.setPreferences(["dl_limit": 4096])
        let limit = try await a.preference("dl_limit", as: Int.self)
        XCTAssertEqual(limit, 4096)
    }

    /// A node's heartbeat row carries its transfer totals, for the others' `transfer/info` to add.
    func testAHeartbeatCarriesTheNodesTransferTotals() async throws {
        let url = try await TestPostgres.freshDatabase()
        let a = try await PostgresStore(url: url, node: "a", logger: TestPostgres.logger)
        let b = try await PostgresStore(url: url, node: "b", logger: TestPostgres.logger)
        defer { a.close(); b.close() }
        let totals = TransferTotals(sessionDownload: 1, sessionUpload: 2, allTimeDownload: 1 << 40, allTimeUpload: 4)
        try await a.publish(NodeRecord(name: "a", address: "127.0.0.1:1", startedAt: 5, totals: totals))
        let read = try await b.nodes().first { $0.name == "a" }
        XCTAssertEqual(read?.totals, totals)
        let sum = totals &+ TransferTotals(sessionDownload: .max, allTimeUpload: 1)
        XCTAssertEqual(sum.sessionDownload, .min)  // wrapping: another machine's numbers never trap this one
        XCTAssertEqual(sum.allTimeUpload, 5)
    }

    func testTusUploadsStayWithTheirNode() async throws {
        let url = try await TestPostgres.freshDatabase()
        let a = try await PostgresStore(url: url, node: "a", logger: TestPostgres.logger)
        let b = try await PostgresStore(url: url, node: "b", logger: TestPostgres.logger)
        defer { a.close(); b.close() }
        try await a.tus.saveTusUpload(TusUploadRecord(id: "u1", length: 10, metadata: ["filename": "x"], destination: "/srv",
                                                      createdAt: 1, expiresAt: 2))
        try await a.tus.setTusOffset("u1", offset: 4, length: 10, expiresAt: 3)
        let onA = try await a.tus.tusUpload("u1")
        XCTAssertEqual(onA?.offset, 4)
        XCTAssertEqual(onA?.metadata, ["filename": "x"])
        let onB = try await b.tus.tusUploads()
        XCTAssertEqual(onB.map(\.id), [], "the data file is on a's disk")
        let unfinished = try await a.tus.unfinishedTusUploadCount()
        XCTAssertEqual(unfinished, 1)
    }

    func testABadURLSaysWhatToWrite() async throws {
        do {
            _ = try await PostgresStore(url: "mysql://x/y", node: "a")
            XCTFail("a mysql URL was taken")
        } catch let error as StoreError {
            XCTAssertTrue(error.description.contains("postgres://"), error.description)
        }
    }
}
