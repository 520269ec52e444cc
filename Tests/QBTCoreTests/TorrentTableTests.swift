import EngineTestSupport
import Foundation
import MemoryEngine
import Store
import XCTest

@testable import QBTCore
@testable import TorrentEngine

/// The board follows the torrents' facts: a change of what a row shows makes that row again (and only it), a change
/// of the service's own bookkeeping makes nothing again, and a removed torrent leaves nothing behind.
final class TorrentTableTests: XCTestCase {
    var dir: URL!

    override func setUp() async throws { dir = try temporaryFolder("qbtd-table") }

    override func tearDown() async throws { try? FileManager.default.removeItem(at: dir) }

    func testTheTableCountsFactChangesNotBookkeeping() {
        var table = TorrentTable()
        let record = TorrentRecord(id: "a", name: "a", metainfo: nil, magnet: nil, savePath: "/data")
        table["a"] = TorrentEntry(StoredTorrent(record: record, tags: []))
        XCTAssertEqual(table.takeChanges(), ["a"])
        let revision = table.revision
        table["a"]?.work.renamesInFlight += 1
        table["a"]?.work.finished = true
        XCTAssertEqual(table.revision, revision, "bookkeeping is not a change of any row")
        XCTAssertTrue(table.takeChanges().isEmpty)
        table["a"]?.facts.trackers = ["http://127.0.0.1:1/announce"]
        XCTAssertEqual(table.takeChanges(), ["a"])
        XCTAssertEqual(table.trackersRevision, 1)
        table["a"] = nil
        XCTAssertEqual(table.takeChanges(), ["a"])
        XCTAssertEqual(table.count, 0)
    }

    func testAFactChangeRemakesOnlyItsRow() async throws {
        let server = try await MemoryServer.start(in: dir)
        let service = server.service
        let ids = (1...3).map { MemoryServer.magnet($0).id }
        _ = await service.add((1...3).map { MemoryServer.magnet($0) }, options: AddOptions())
        let before = await service.currentBoard()
        XCTAssertEqual(before.entries.count, 3)
        try await service.labels.addTags([ids[1]], ["films"])
        let after = await service.currentBoard()
        XCTAssertEqual(after.changed, [ids[1]], "only the tagged torrent's row is made again")
        XCTAssertEqual(after.entries[ids[1]]?.view.tags, ["films"])
        XCTAssertTrue(after.entries[ids[0]] === before.entries[ids[0]], "an unchanged row stays the same object")
        // Bookkeeping only: the board is the same board.
        await service.renameDone(ids[0])
        let same = await service.currentBoard()
        XCTAssertEqual(same.generation, after.generation)
        await service.remove([ids[2]], deleteFiles: false)
        let removed = await service.currentBoard()
        XCTAssertNil(removed.entries[ids[2]])
        let left = await service.torrents[ids[2]]
        XCTAssertNil(left)
    }
}
