import EngineTestSupport
import Foundation
import MemoryEngine
import Store
import XCTest

@testable import QBTCore
@testable import Streaming
@testable import TorrentEngine

/// The stream scheduler over the in-memory engine: readers park on pieces, are woken by the piece's event alone,
/// and the deadlines follow them.
final class StreamSchedulerTests: XCTestCase {
    var dir: URL!

    override func setUp() async throws { dir = try temporaryFolder("qbtd-stream") }

    override func tearDown() async throws { try? FileManager.default.removeItem(at: dir) }

    let pieceLength = 16 * 1024

    func makeStreams(stall: Duration = .seconds(30), budget: Int64? = nil) async throws -> (StreamService, MemoryEngine, TorrentID) {
        let server = try await MemoryServer.start(in: dir)
        let (service, engine) = (server.service, server.engine)
        let parsed = try ParsedTorrent(.magnet("magnet:?xt=urn:btih:\(String(repeating: "c", count: 40))&dn=movie"))
        guard case .added(let id) = await service.add([parsed], options: AddOptions())[0] else { throw EngineError.failed("not added") }
        try await engine.setFiles(id, pieceLength: pieceLength, sizes: [("movie.mkv", Int64(pieceLength * 40))])
        var configuration = StreamService.Configuration(cacheDirectory: dir.path + "/cache")
        configuration.stallTimeout = stall
        if let budget { configuration.budget = budget }
        let streams = try await StreamService(engine: engine, torrents: service, configuration: configuration)
        return (streams, engine, id)
    }

    func testAReaderParksUntilItsPieceFinishesAndTheDeadlineFollowsIt() async throws {
        let (streams, engine, id) = try await makeStreams()
        let stream = try await streams.prepare(.hash(id), fileIndex: 0, title: nil, trackers: [], networkMbps: nil)
        // In place: the file's ends get deadlines at once, nearest first.
        let first = await engine.deadlines[id] ?? [:]
        XCTAssertEqual(first[0], 0)
        XCTAssertNotNil(first[39])

        let reader = UUID()
        let position = Int64(pieceLength * 10 + 100)
        let woken = Task { try await streams.waitForData(stream.id, reader: reader, position: position) }
        try await Task.sleep(for: .milliseconds(300))
        let deadlines = await engine.deadlines[id] ?? [:]
        XCTAssertNotNil(deadlines[10], "the piece under the reader has a deadline")
        XCTAssertNotNil(deadlines[11], "and the window ahead of it")

        // Another piece finishing does not wake it; its own piece does.
        try await engine.finishPiece(id, 12)
        try await Task.sleep(for: .milliseconds(200))
        try await engine.finishPiece(id, 10)
        try await withTimeout(seconds: 5) { try await woken.value }
        await streams.leave(stream.id, reader: reader)
    }

    func testAReaderWithNoDataEndsWithAStallNotAHang() async throws {
        let (streams, _, id) = try await makeStreams(stall: .seconds(1))
        let stream = try await streams.prepare(.hash(id), fileIndex: 0, title: nil, trackers: [], networkMbps: nil)
        do {
            try await streams.waitForData(stream.id, reader: UUID(), position: Int64(pieceLength * 20))
            XCTFail("a reader without data was answered")
        } catch let failure as StreamService.Failure {
            XCTAssertEqual(failure, .stalled(1))
        }
    }

    func testAPieceAlreadyHadAnswersAtOnce() async throws {
        let (streams, engine, id) = try await makeStreams()
        try await engine.finishPiece(id, 5)
        let stream = try await streams.prepare(.hash(id), fileIndex: 0, title: nil, trackers: [], networkMbps: nil)
        let position = Int64(pieceLength * 5)
        try await withTimeout(seconds: 5) {
            try await streams.waitForData(stream.id, reader: UUID(), position: position)
        }
    }

    /// Waits (bounded) until `condition` holds.
    func eventually(_ what: String, _ condition: @escaping @Sendable () async -> Bool) async throws {
        for _ in 0..<250 {
            if await condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        XCTFail("never: \(what)")
    }

    func testAStreamCacheTorrentForgetsPiecesInPlaceAndKeepsItsSeedsWhileItStreams() async throws {
        let (streams, engine, _) = try await makeStreams(budget: Int64(pieceLength * 10))
        let hash = String(repeating: "d", count: 40)
        let opening = Task {
            try await streams.prepare(.magnet("magnet:?xt=urn:btih:\(hash)&dn=film"), fileIndex: 0, title: nil, trackers: [],
                                      networkMbps: nil)
        }
        try await eventually("the stream cache adds the torrent") { (try? engine.status(hash)) != nil }
        try await engine.setFiles(hash, pieceLength: pieceLength, sizes: [("film.mkv", Int64(pieceLength * 40))])
        await engine.post(.metadataReceived(hash))  // as libtorrent's alert follows the metadata
        let stream = try await withTimeout(seconds: 5) { try await opening.value }
        XCTAssertTrue(stream.owned)
        try await eventually("the torrent is set streaming (it keeps its seeds)") { await engine.streaming.contains(hash) }
        // A file four times the budget gets no background download, only what the scheduler asks for: its pieces at
        // 0 but for the ends (the file stays wanted, so its data lands in the file, where readers find it).
        let wanted = try await engine.files(hash).first?.priority
        XCTAssertEqual(wanted, 1)
        let priorities = await engine.piecePriorities[hash] ?? [:]
        XCTAssertEqual(priorities[20], 0)
        XCTAssertEqual(priorities[0], 7)

        // Nine pieces of a ten-piece budget: past 80 %, the least useful go down to half the budget.
        for piece in 0..<9 { try await engine.finishPiece(hash, piece) }
        try await eventually("pieces are forgotten") {
            ((try? await engine.pieceStates(hash)) ?? []).filter { $0 == .have }.count <= 5
        }
        XCTAssertNotNil(try? engine.status(hash), "forgotten in place: the torrent is still in the engine")

        try await streams.stop(stream.id)
        try await eventually("with no stream left, it is not streaming") { await !engine.streaming.contains(hash) }
    }
}
