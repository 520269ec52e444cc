import EngineTestSupport
import Foundation
import XCTest

@testable import TorrentEngine

/// Two real libtorrent sessions on 127.0.0.1: one seeds, the other downloads.
final class LoopbackTransferTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = try temporaryFolder("engine") }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    static var loopback: EngineSettings {
        var s = EngineSettings()
        s.listenInterfaces = "127.0.0.1:0"
        s.disableDiscovery()
        s.utp = false
        return s
    }

    /// Makes `payload/` with three files of random bytes and returns the .torrent.
    func makePayload() throws -> (torrent: [UInt8], files: [String: Data]) {
        let root = dir.appendingPathComponent("seed/payload")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("sub"), withIntermediateDirectories: true)
        var files: [String: Data] = [:]
        for (name, size) in [("a.bin", 3 * 1024 * 1024 + 17), ("sub/b.bin", 1024 * 1024), ("c.bin", 5000)] {
            let data = Data((0..<size).map { _ in UInt8.random(in: 0...255) })
            try data.write(to: root.appendingPathComponent(name))
            files["payload/" + name] = data
        }
        return (try TorrentCreator.create(path: root.path, pieceSize: 64 * 1024), files)
    }

    func testDownloadBetweenTwoSessionsWithEventsResumeDataAndPieceReads() async throws {
        let (torrent, files) = try makePayload()
        let resumeSaves = ResumeLog()
        let seeder = try LibtorrentEngine(settings: Self.loopback) { _ in }
        let leecher = try LibtorrentEngine(settings: Self.loopback, resumeInterval: .seconds(1)) { batch in
            for (id, data) in batch { await resumeSaves.record(id, data.count) }
        }

        var seed = AddTorrentRequest(source: .metainfo(torrent), savePath: dir.appendingPathComponent("seed").path)
        seed.skipChecking = true
        let id = try await seeder.add(seed).id
        // The same files in other pieces (another torrent), stopped from the start: it never moves a byte.
        var still = AddTorrentRequest(source: .metainfo(try TorrentCreator.create(path: dir.appendingPathComponent("seed/payload").path,
                                                                                  pieceSize: 32 * 1024)),
                                      savePath: dir.appendingPathComponent("seed").path)
        still.skipChecking = true
        still.stopped = true
        let stillID = try await seeder.add(still).id
        XCTAssertEqual(id, try ParsedTorrent(.metainfo(torrent)).id)
        XCTAssertEqual(id.count, 40)

        let events = await leecher.events()
        let got = try await leecher.add(AddTorrentRequest(source: .metainfo(torrent), savePath: dir.appendingPathComponent("got").path))
        XCTAssertEqual(got.id, id)
        // The add published the torrent at once; commands run on the engine's own thread, not the pool.
        XCTAssertNotNil(leecher.snapshot.status(id))
        let threadName = await leecher.currentThreadName()
        XCTAssertEqual(threadName, "qbtd-engine")
        await XCTAssertThrowsErrorAsync(try await leecher.add(AddTorrentRequest(source: .metainfo(torrent), savePath: "/tmp"))) {
            XCTAssertEqual($0 as? EngineError, .duplicate(id))
        }

        let port = try await waitForPort(seeder)
        try await leecher.connectPeer(id, host: "127.0.0.1", port: port)

        // Wait for `finished`, counting piece events on the way (bounded).
        let pieces = try await withTimeout(seconds: 60) { () -> Set<Int>? in
            var pieces = Set<Int>()
            for await event in events {
                if case .pieceFinished(id, let piece) = event { pieces.insert(piece) }
                if case .finished(id) = event { return pieces }
            }
            return nil
        }
        let finishedPieces = try XCTUnwrap(pieces, "the event stream ended before the torrent finished")
        // Events are handed out after the snapshot they change: at `finished` the snapshot already says so.
        let status = try leecher.status(id)
        XCTAssertEqual(status.progress, 1)
        XCTAssertEqual(finishedPieces.count, status.numPieces, "one piece-finished event per piece")
        for (path, data) in files {
            XCTAssertEqual(try Data(contentsOf: dir.appendingPathComponent("got/" + path)), data, path)
        }

        let fileList = try await leecher.files(id)
        XCTAssertEqual(Set(fileList.map(\.path)), Set(files.keys))
        XCTAssertTrue(fileList.allSatisfy { $0.progress == 1 })

        // A finished piece reads back byte for byte.
        let first = fileList.min { $0.offset < $1.offset }!
        let piece = try await leecher.readPiece(id, piece: 0)
        XCTAssertEqual(piece.count, 64 * 1024)
        XCTAssertEqual(Data(piece.prefix(1000)), files[first.path]!.prefix(1000))

        try await leecher.saveResumeData(id)
        try await Task.sleep(for: .milliseconds(500))
        let value1 = await resumeSaves.count(id)
        XCTAssertGreaterThan(value1, 0)

        try await leecher.remove(id, deleteFiles: true)
        XCTAssertThrowsError(try leecher.status(id)) { XCTAssertEqual($0 as? EngineError, .notFound(id)) }
        // A torrent that just moved data and was stopped keeps changing a while: libtorrent lets its rates fade to 0
        // a tick at a time (qBittorrent shows them fading too).
        try await seeder.pause(id)
        let fading = try await rates(of: id, in: seeder)
        XCTAssertEqual(fading, fading.sorted(by: >), "a stopped torrent's upload rate only falls")
        // An idle session publishes nothing new: with that torrent gone, it holds one stopped torrent that never moved
        // a byte.
        try await seeder.remove(id, deleteFiles: false)
        try await Task.sleep(for: .milliseconds(1500))
        // No reader asked for a while, so statuses come every fifth second: a reader's freshen brings them now.
        await seeder.freshen()
        try await Task.sleep(for: .milliseconds(300))
        let before = seeder.snapshot.generation
        try await Task.sleep(for: .milliseconds(2500))
        XCTAssertEqual(seeder.snapshot.generation, before, "a stopped torrent and an idle session changed the snapshot")
        XCTAssertEqual(try seeder.status(stillID).paused, true)
        await leecher.shutdown()
        await seeder.shutdown()
    }

    func testParseRejectsGarbageAndBadMagnets() {
        XCTAssertThrowsError(try ParsedTorrent(.metainfo(Array("not bencode".utf8))))
        XCTAssertThrowsError(try ParsedTorrent(.metainfo([])))
        XCTAssertThrowsError(try ParsedTorrent(.magnet("magnet:?dn=x")))
        XCTAssertThrowsError(try ParsedTorrent(.magnet("http://x")))
        let hash = String(repeating: "ab", count: 20)
        XCTAssertEqual(try ParsedTorrent(.magnet("magnet:?xt=urn:btih:\(hash.uppercased())&dn=n")).id, hash)
    }

    /// The upload rate of `id` in `engine`'s snapshot, read three times a second apart (a reader's freshen each time).
    func rates(of id: TorrentID, in engine: LibtorrentEngine) async throws -> [Int] {
        var seen: [Int] = []
        for _ in 0..<3 {
            try await Task.sleep(for: .milliseconds(1000))
            await engine.freshen()
            seen.append(try engine.status(id).uploadRate)
        }
        return seen
    }

    func waitForPort(_ engine: LibtorrentEngine) async throws -> Int {
        for _ in 0..<100 {
            let port = await engine.listenPort
            if port > 0 { return port }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw EngineError.failed("seeder never listened")
    }
}

actor ResumeLog {
    var saves: [String: Int] = [:]
    func record(_ id: String, _ bytes: Int) { saves[id, default: 0] += 1 }
    func count(_ id: String) -> Int { saves[id] ?? 0 }
}

func XCTAssertThrowsErrorAsync<T>(_ expression: @autoclosure () async throws -> T, _ check: (Error) -> Void = { _ in },
                                  file: StaticString = #filePath, line: UInt = #line) async {
    do {
        _ = try await expression()
        XCTFail("no error thrown", file: file, line: line)
    } catch {
        check(error)
    }
}

extension LibtorrentEngine {
    /// The thread the actor's code runs on.
    func currentThreadName() -> String? { Thread.current.name }
}
