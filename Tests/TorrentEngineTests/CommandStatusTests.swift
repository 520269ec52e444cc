import EngineTestSupport
import Foundation
import XCTest

@testable import TorrentEngine

/// A command's effect stays published: a state update libtorrent posted before the command, and drained after it,
/// does not put the older status back (nor a removed torrent). A real session on 127.0.0.1.
final class CommandStatusTests: XCTestCase {
    /// A session and a request to add a complete 256 KiB torrent made in a fresh folder (removed by the caller).
    func seeded(_ name: String) throws -> (dir: URL, engine: LibtorrentEngine, request: AddTorrentRequest) {
        let dir = try temporaryFolder(name)
        let folder = dir.appendingPathComponent("payload")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(repeating: 7, count: 256 * 1024).write(to: folder.appendingPathComponent("\(name).bin"))
        let torrent = try TorrentCreator.create(path: folder.path, pieceSize: 64 * 1024)
        let engine = try LibtorrentEngine(settings: LoopbackTransferTests.loopback) { _ in }
        var request = AddTorrentRequest(source: .metainfo(torrent), savePath: dir.path)
        request.skipChecking = true
        return (dir, engine, request)
    }

    /// Waits (at most 5 s) until the engine drained a state update after the `seen`th.
    func drainedStateUpdate(after seen: UInt64, _ engine: LibtorrentEngine, round: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while await engine.statesSeen == seen, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        let drained = await engine.statesSeen
        XCTAssertGreaterThan(drained, seen, "round \(round): the state update was drained")
    }

    func testAStateUpdateFromBeforeACommandDoesNotUndoIt() async throws {
        let (dir, engine, request) = try seeded("command")
        defer { try? FileManager.default.removeItem(at: dir) }
        let id = try await engine.add(request).id

        var on = false
        for round in 0..<12 {
            on.toggle()
            let seen = await engine.statesSeen
            // Each round's post lists the torrent with the last round's setting (that toggle changed it), and is
            // still in the alert queue when this round's toggle is answered.
            try await engine.postThenSetSequential(id, on)
            XCTAssertEqual(engine.snapshot.status(id)?.sequential, on, "round \(round): the command's answer")
            try await drainedStateUpdate(after: seen, engine, round: round)
            XCTAssertEqual(engine.snapshot.status(id)?.sequential, on, "round \(round): after the older state update")
        }
        await engine.shutdown(timeout: .seconds(5))
    }

    func testAStateUpdateFromBeforeARemovalDoesNotBringTheTorrentBack() async throws {
        let (dir, engine, request) = try seeded("removal")
        defer { try? FileManager.default.removeItem(at: dir) }
        for round in 0..<12 {
            // Added again each round: a removal confirmed, then an add of the same torrent, publishes it again.
            let id = try await engine.add(request).id
            XCTAssertNotNil(engine.snapshot.status(id), "round \(round): added")
            try await engine.setSequential(id, round % 2 == 0)  // changed: the next state update lists it
            let seen = await engine.statesSeen
            try await engine.postThenRemove(id)
            XCTAssertNil(engine.snapshot.status(id), "round \(round): the removal's answer")
            try await drainedStateUpdate(after: seen, engine, round: round)
            XCTAssertNil(engine.snapshot.status(id), "round \(round): after the older state update")
        }
        await engine.shutdown(timeout: .seconds(5))
    }
}

extension LibtorrentEngine {
    /// Posts for the statuses that changed and, with no drain between (this runs on the engine as one step), gives
    /// libtorrent time to queue its answer before the command.
    func postThenSetSequential(_ id: TorrentID, _ on: Bool) throws {
        postUpdates()
        usleep(100_000)
        try setSequential(id, on)
    }

    /// The same for a removal: the state update that still lists the torrent is queued before it is removed.
    func postThenRemove(_ id: TorrentID) throws {
        postUpdates()
        usleep(100_000)
        try remove(id, deleteFiles: false)
    }
}
