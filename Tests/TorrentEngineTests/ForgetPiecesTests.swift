import EngineTestSupport
import Foundation
import XCTest

@testable import TorrentEngine

/// libtorrent, patched (contrib/libtorrent), forgets pieces in place: it says which ones it forgot, keeps the
/// connection to its seed, and fetches them again over it when they are wanted. Two real sessions on 127.0.0.1.
final class ForgetPiecesTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = try temporaryFolder("forget") }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func testForgottenPiecesComeBackOverTheSameConnection() async throws {
        let folder = dir.appendingPathComponent("seed/film")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let film = Data((0..<(2 << 20)).map { _ in UInt8.random(in: 0...255) })
        try film.write(to: folder.appendingPathComponent("film.bin"))
        let torrent = try TorrentCreator.create(path: folder.path, pieceSize: 64 * 1024)

        let seeder = try LibtorrentEngine(settings: LoopbackTransferTests.loopback) { _ in }
        let leecher = try LibtorrentEngine(settings: LoopbackTransferTests.loopback) { _ in }
        var seed = AddTorrentRequest(source: .metainfo(torrent), savePath: dir.appendingPathComponent("seed").path)
        seed.skipChecking = true
        let id = try await seeder.add(seed).id
        let firstPass = await leecher.events()
        _ = try await leecher.add(AddTorrentRequest(source: .metainfo(torrent), savePath: dir.appendingPathComponent("got").path))
        // As a stream cache: never the whole torrent (a seed hangs up on a peer that has it all), and a finished
        // torrent keeps its seed while it streams.
        let last = film.count / (64 * 1024) - 1
        try await leecher.setPiecePriority(id, piece: last, priority: 0)
        try await leecher.setStreaming(id, true)
        var port = 0
        for _ in 0..<100 where port == 0 {
            port = await seeder.listenPort
            if port == 0 { try await Task.sleep(for: .milliseconds(50)) }
        }
        try await leecher.connectPeer(id, host: "127.0.0.1", port: port)
        try await withTimeout(seconds: 60) {
            for await event in firstPass { if case .finished(id) = event { return } }
        }
        let connection = try await seeder.peers(id).map(\.port)
        XCTAssertEqual(connection.count, 1)

        let forgotten = try await leecher.forgetPieces(id, [3, 4, 5, 9999])
        XCTAssertEqual(forgotten, [3, 4, 5], "the pieces it had, and nothing out of range")
        let twice = try await leecher.forgetPieces(id, [3])
        XCTAssertEqual(twice, [], "a piece no longer had is not forgotten again")
        let states = try await leecher.pieceStates(id)
        XCTAssertEqual(states[2], .have)
        XCTAssertEqual(states[3], .missing)

        // Wanted again (their priority was set to 0 on forgetting): fetched over the connection that stayed.
        let secondPass = await leecher.events()
        for piece in forgotten { try await leecher.setPiecePriority(id, piece: piece, priority: 7) }
        try await withTimeout(seconds: 60) {
            var back = Set<Int>()
            for await event in secondPass {
                if case .pieceFinished(id, let piece) = event { back.insert(piece) }
                if back.isSuperset(of: forgotten) { return }
            }
        }
        let got = try Data(contentsOf: dir.appendingPathComponent("got/film/film.bin"))
        XCTAssertEqual(got.prefix(last * 64 * 1024), film.prefix(last * 64 * 1024))
        let after = try await seeder.peers(id).map(\.port)
        XCTAssertEqual(after, connection, "the seed saw no new connection")

        // No longer streaming, a finished torrent's seed is redundant: the connection closes, as libtorrent does.
        try await leecher.setStreaming(id, false)
        var left = after
        for _ in 0..<100 where !left.isEmpty {
            try await Task.sleep(for: .milliseconds(50))
            left = try await leecher.peers(id).map(\.port)
        }
        XCTAssertEqual(left, [], "the redundant connection to the seed closed")
        await leecher.shutdown()
        await seeder.shutdown()
    }
}
