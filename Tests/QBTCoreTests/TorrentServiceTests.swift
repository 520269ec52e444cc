import EngineTestSupport
import Foundation
import MemoryEngine
import GRDB
import Store
import XCTest

@testable import QBTCore
@testable import TorrentEngine

/// `TorrentService` over the in-memory engine and a real SQLite file: no session, no swarm.
final class TorrentServiceTests: XCTestCase {
    var dir: URL!

    override func setUp() async throws { dir = try temporaryFolder("qbtd-service") }

    override func tearDown() async throws { try? FileManager.default.removeItem(at: dir) }

    static func magnet(_ n: Int) -> ParsedTorrent { MemoryServer.magnet(n) }

    func makeService(store: (any Store)? = nil) async throws -> (TorrentService, MemoryEngine, any Store) {
        let server = try await MemoryServer.start(in: dir, store: store)
        return (server.service, server.engine, server.store)
    }

    func testBatchAddStoresEveryRowAndStartsEachTorrentAsItsRecordSays() async throws {
        let (service, engine, store) = try await makeService()
        var options = AddOptions()
        options.stopped = true
        options.tags = ["x"]
        let torrents = [Self.magnet(1), Self.magnet(2), Self.magnet(1)]
        let outcomes = await service.add(torrents, options: options)
        XCTAssertEqual(outcomes.count, 3)
        guard case .added = outcomes[0], case .added = outcomes[1], case .duplicate(torrents[0].id) = outcomes[2] else {
            return XCTFail("\(outcomes)")
        }
        let stored = try await store.torrents().map(\.record.id).sorted()
        XCTAssertEqual(stored, [torrents[0].id, torrents[1].id].sorted())
        let status = try engine.status(torrents[0].id)
        XCTAssertTrue(status.paused)
        XCTAssertFalse(status.autoManaged)
        let listed = await service.views().map(\.id)
        XCTAssertEqual(listed, [torrents[0].id, torrents[1].id])
        // Kept in memory without a second copy of the .torrent or the resume data (SQLite and libtorrent have them).
        let kept = await service.torrents[torrents[0].id]?.record
        XCTAssertNil(kept?.metainfo)
        XCTAssertNil(kept?.resumeData)
    }

    func testTheBoardKeepsUnchangedEntriesAndRemakesOnlyWhatChanged() async throws {
        let (service, engine, store) = try await makeService()
        let torrents = (1...50).map(Self.magnet)
        _ = await service.add(torrents, options: AddOptions())
        let first = await service.currentBoard()
        XCTAssertEqual(first.entries.count, 50)
        let again = await service.currentBoard()
        XCTAssertEqual(again.generation, first.generation, "nothing changed: the same board")

        // The engine publishes one changed status: only that entry is new.
        try await engine.update(torrents[7].id) { $0.downloadRate = 1234 }
        let second = await service.currentBoard()
        XCTAssertGreaterThan(second.generation, first.generation)
        XCTAssertEqual(second.downloadRate, 1234)
        XCTAssertEqual(second.changed, [torrents[7].id], "made from the engine's change log, not a walk")
        XCTAssertEqual(second.previousGeneration, first.generation)
        for t in torrents {
            let same = second.entries[t.id] === first.entries[t.id]
            XCTAssertEqual(same, t.id != torrents[7].id, t.id)
        }

        // A record change (stop) goes to SQLite first, then the engine; again only its entry changes.
        try await service.setStopped([torrents[3].id], true)
        let stopped = try await store.torrent(torrents[3].id)?.record.stopped
        XCTAssertEqual(stopped, true)
        XCTAssertTrue(try engine.status(torrents[3].id).paused)
        let third = await service.currentBoard()
        XCTAssertEqual(third.entries[torrents[3].id]?.view.state, .stoppedDL)
        XCTAssertTrue(third.entries[torrents[4].id] === second.entries[torrents[4].id])
        XCTAssertFalse(third.entries[torrents[3].id] === second.entries[torrents[3].id])

        await service.remove([torrents[0].id], deleteFiles: false)
        let fourth = await service.currentBoard()
        XCTAssertNil(fourth.entries[torrents[0].id])
        XCTAssertEqual(fourth.order.count, 49)
        let gone = try await store.torrent(torrents[0].id)
        XCTAssertNil(gone)
    }

    func testRestartRestoresEveryTorrentInOneBatch() async throws {
        let (first, _, store) = try await makeService()
        var options = AddOptions()
        options.stopped = true
        _ = await first.add((1...20).map(Self.magnet), options: options)
        await first.shutdown()
        // A new service and engine over the same database: everything comes back, as its record says.
        let (service, engine, _) = try await makeService(store: store)
        let count = await service.count
        XCTAssertEqual(count, 20)
        XCTAssertEqual(engine.snapshot.torrents.count, 20)
        XCTAssertTrue(engine.snapshot.torrents.values.allSatisfy { $0.status.paused })
    }

    func testEventsRaisedBeforeTheAddAnswersAreHandledOnceTheTorrentIsKnown() async throws {
        let (service, engine, store) = try await makeService()
        let t = Self.magnet(5)
        // As libtorrent does for data already on disk: checked and finished before the add has answered.
        await engine.raiseWhileAdding { [.checked($0), .finished($0)] }
        _ = await service.add([t], options: AddOptions())
        try await eventually { await service.finishedTorrents.contains(t.id) }
        let record = await service.torrents[t.id]?.record
        XCTAssertNotNil(record?.completedOn, "the finish was lost")
        let stored = try await store.torrent(t.id)?.record
        XCTAssertNotNil(stored?.completedOn)
        let finished = await service.finishedTorrents
        XCTAssertEqual(finished, [t.id])
        let held = await service.addsInFlight
        XCTAssertTrue(held.isEmpty, "\(held)")
        let messages = service.log.messages(after: -1, kinds: [.normal]).map(\.message)
        XCTAssertEqual(messages.filter { $0.hasPrefix("Torrent download finished") }.count, 1, "\(messages)")
    }

    func testEventsRaisedBeforeARestoredTorrentIsKnownAreHandledToo() async throws {
        let (first, firstEngine, store) = try await makeService()
        let (t, done) = (Self.magnet(8), Self.magnet(10))
        _ = await first.add([t], options: AddOptions())
        await firstEngine.raiseWhileAdding { [.finished($0)] }
        _ = await first.add([done], options: AddOptions())
        try await eventually { await first.finishedTorrents.contains(done.id) }
        let completed = await first.torrents[done.id]?.record.completedOn
        XCTAssertNotNil(completed)
        await first.shutdown()
        // A restart's batch add: libtorrent finds the data whole before the batch has answered.
        let engine = MemoryEngine()
        await engine.raiseWhileAdding { [.checked($0), .finished($0)] }
        let service = try await MemoryServer.start(in: dir, store: store, engine: engine).service
        try await eventually { await service.finishedTorrents.contains(t.id) }
        let record = await service.torrents[t.id]?.record
        XCTAssertNotNil(record?.completedOn, "the finish was lost")
        let finished = await service.finishedTorrents
        XCTAssertEqual(finished, [t.id, done.id])
        let kept = await service.torrents[done.id]?.record.completedOn
        XCTAssertEqual(kept, completed, "a torrent finished before the restart finished again")
        let messages = service.log.messages(after: -1, kinds: [.normal]).map(\.message)
        XCTAssertEqual(messages.filter { $0.hasPrefix("Torrent download finished") }.count, 1, "\(messages)")
        let held = await service.addsInFlight
        XCTAssertTrue(held.isEmpty, "\(held)")
    }

    func testAnEventFromAnEarlierTorrentWithTheSameIDIsNotTheNewOnes() async throws {
        let (service, engine, _) = try await makeService()
        let t = Self.magnet(6)
        // A finish left over from a removed torrent (or a hidden metadata fetch) with this id, raised before the
        // engine's `added` for the new one.
        await engine.raiseBeforeAdded { [.finished($0)] }
        await engine.raiseWhileAdding { _ in [] }
        _ = await service.add([t], options: AddOptions())
        let record = await service.torrents[t.id]?.record
        XCTAssertNotNil(record)
        XCTAssertNil(record?.completedOn, "an earlier torrent's finish was taken for this one's")
        let held = await service.addsInFlight
        XCTAssertTrue(held.isEmpty, "\(held)")
    }

    /// Returns once `done` holds, or after 5 s: the engine's events reach the service on a task of their own, which a
    /// loaded machine may run after the add has answered (a lost event still fails the assertions that follow).
    func eventually(_ done: @Sendable () async -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while !(await done()), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
    }

    func testAFailedStoreWriteIsAnErrorNotASwallowedChange() async throws {
        let (service, engine, _) = try await makeService()
        let t = Self.magnet(9)
        _ = await service.add([t], options: AddOptions())
        // SQLite refuses the write (a trigger stands in for a full disk): setStopped must throw and the engine
        // must not act on a change SQLite does not hold.
        _ = try await refuse("UPDATE")
        do {
            try await service.setStopped([t.id], true)
            XCTFail("a failed write was acknowledged")
        } catch {}
        XCTAssertFalse(try engine.status(t.id).paused)
    }
    /// A second connection to the database that refuses every `verb` (UPDATE, DELETE) on torrents, as a full disk would.
    func refuse(_ verb: String) async throws -> DatabaseQueue {
        let other = try DatabaseQueue(path: dir.path + "/qbtd.sqlite")
        try await other.write { db in
            try db.execute(sql: "CREATE TRIGGER refuse BEFORE \(verb) ON torrents BEGIN SELECT RAISE(ABORT, 'disk full'); END")
        }
        return other
    }

    func testAFinishedTorrentWhoseMoveSQLiteRefusesStaysInItsDownloadPath() async throws {
        let (service, engine, store) = try await makeService()
        let t = Self.magnet(11)
        var options = AddOptions()
        options.downloadPath = dir.path + "/incomplete"
        _ = await service.add([t], options: options)
        XCTAssertEqual(try engine.status(t.id).savePath, dir.path + "/incomplete")
        _ = try await refuse("UPDATE")
        await engine.post(.finished(t.id))
        try await eventually { await service.finishedTorrents.contains(t.id) }
        // The engine did not move it, and memory and SQLite still agree on where it is.
        XCTAssertEqual(try engine.status(t.id).savePath, dir.path + "/incomplete")
        let stored = try await store.torrent(t.id)?.record
        XCTAssertEqual(stored?.downloadPath, dir.path + "/incomplete")
        let record = await service.torrents[t.id]?.record
        XCTAssertEqual(record?.downloadPath, dir.path + "/incomplete")
        let critical = service.log.messages(after: -1, kinds: [.critical]).map(\.message)
        XCTAssertTrue(critical.contains { $0.contains("stays in \(dir.path)/incomplete") }, "\(critical)")
    }

    func testARefusedTorrentsRowIsDeletedEvenWhenSQLiteRefusedTheFirstDelete() async throws {
        let (service, engine, store) = try await makeService()
        let t = Self.magnet(12)
        // The engine has it already (as a hidden fetch can): it refuses the service's add as a duplicate.
        _ = await engine.add([AddTorrentRequest(t, savePath: dir.path)])
        let other = try await refuse("DELETE")
        let outcomes = await service.add([t], options: AddOptions())
        guard case .duplicate = outcomes[0] else { return XCTFail("\(outcomes)") }
        var rows = try await store.torrentsWithoutSources().map(\.record.id)
        XCTAssertEqual(rows, [t.id], "the row the delete could not remove")
        let warnings = service.log.messages(after: -1, kinds: [.warning]).map(\.message)
        XCTAssertTrue(warnings.contains { $0.contains("could not be deleted") }, "\(warnings)")
        // While SQLite still refuses, the next add is refused as a whole rather than leaving the row behind.
        let u = Self.magnet(13)
        guard case .invalid = await service.add([u], options: AddOptions())[0] else { return XCTFail("acknowledged") }
        try await other.write { db in try db.execute(sql: "DROP TRIGGER refuse") }
        guard case .added = await service.add([u], options: AddOptions())[0] else { return XCTFail("not added") }
        rows = try await store.torrentsWithoutSources().map(\.record.id)
        XCTAssertEqual(rows, [u.id])
        let known = await service.torrents.ids.sorted()
        XCTAssertEqual(known, [u.id])
    }
}
