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

    func testThePieceMapFollowsPieceAndForgetEvents() async throws {
        let (streams, engine, id) = try await makeStreams()
        try await engine.finishPiece(id, 2)
        let stream = try await streams.prepare(.hash(id), fileIndex: 0, title: nil, trackers: [], networkMbps: nil)
        XCTAssertTrue(stream.have.has(2), "filled from the engine when the stream opens")
        XCTAssertFalse(stream.have.has(7))
        try await engine.finishPiece(id, 7)
        try await eventually("a piece's event sets its bit") { stream.have.has(7) }
        XCTAssertTrue(stream.isOnDisk(at: Int64(pieceLength * 7 + 5)))
        _ = try await engine.forgetPieces(id, [2, 7])
        try await eventually("the forget's event clears them") { !stream.have.has(2) && !stream.have.has(7) }
        XCTAssertFalse(stream.isOnDisk(at: Int64(pieceLength * 7)))
        // A second stream of the torrent shares the map.
        let other = try await streams.prepare(.hash(id), fileIndex: 0, title: nil, trackers: [], networkMbps: nil)
        try await engine.finishPiece(id, 9)
        try await eventually("both see it") { other.have.has(9) && stream.have.has(9) }
        try await streams.stop(stream.id)
        try await streams.stop(other.id)
        let maps = await streams.have.count
        XCTAssertEqual(maps, 0, "dropped with the torrent's last stream")
    }

    func testChunkReadsAskTheEngineNothing() async throws {
        let (streams, engine, id) = try await makeStreams()
        for piece in 0..<40 { try await engine.finishPiece(id, piece) }
        let stream = try await streams.prepare(.hash(id), fileIndex: 0, title: nil, trackers: [], networkMbps: nil)
        let (asked, states) = (await engine.havePieceCalls, await engine.pieceStatesCalls)
        XCTAssertEqual(asked, 0)
        XCTAssertEqual(states, 1, "the map is filled with one call")
        let reader = UUID()
        // A reader through ten pieces in 4 KiB chunks: wait, (read), test the map; and the runs sendfile would take.
        var position: Int64 = 0
        while position < Int64(pieceLength * 10) {
            let at = position
            try await withTimeout(seconds: 5) { try await streams.waitForData(stream.id, reader: reader, position: at) }
            XCTAssertTrue(stream.isOnDisk(at: position))
            position += 4096
        }
        let run = stream.run(from: 0, through: stream.file.size - 1)
        XCTAssertEqual(run?.end, stream.file.size, "every piece is on disk: the run is the whole file")
        let (askedAfter, statesAfter) = (await engine.havePieceCalls, await engine.pieceStatesCalls)
        XCTAssertEqual(askedAfter, 0, "no havePiece on the chunk path")
        XCTAssertEqual(statesAfter, 1, "no piece states either")
        await streams.leave(stream.id, reader: reader)
    }

    func testARunStopsAtTheFirstPieceNotOnDisk() async throws {
        let (streams, engine, id) = try await makeStreams()
        for piece in [0, 1, 2, 4] { try await engine.finishPiece(id, piece) }
        let stream = try await streams.prepare(.hash(id), fileIndex: 0, title: nil, trackers: [], networkMbps: nil)
        let run = stream.run(from: 100, through: stream.file.size - 1)
        XCTAssertEqual(run?.end, Int64(pieceLength * 3))
        let short = stream.run(from: 100, through: 999)
        XCTAssertEqual(short?.end, 1000, "never past the range asked")
    }

    func testDeadlinesGoInOneCallPerReschedule() async throws {
        let (streams, engine, id) = try await makeStreams()
        let stream = try await streams.prepare(.hash(id), fileIndex: 0, title: nil, trackers: [], networkMbps: nil)
        let opened = await engine.deadlineCalls
        XCTAssertEqual(opened, 1, "the file's ends in one call")
        for piece in 0..<40 { try await engine.finishPiece(id, piece) }
        let reader = UUID()
        for (step, piece) in [10, 11, 25].enumerated() {
            try await streams.waitForData(stream.id, reader: reader, position: Int64(pieceLength * piece))
            let calls = await engine.deadlineCalls
            XCTAssertEqual(calls, opened + step + 1, "one call as the reader enters piece \(piece)")
            let deadlines = await engine.deadlines[id] ?? [:]
            XCTAssertEqual(deadlines[piece], 0, "the piece under the reader first")
            XCTAssertNil(deadlines[piece - 1], "the old window cleared in the same call")
        }
        // Within the same piece: no new deadlines at all.
        try await streams.waitForData(stream.id, reader: reader, position: Int64(pieceLength * 25 + 100))
        let after = await engine.deadlineCalls
        XCTAssertEqual(after, opened + 3)
        await streams.leave(stream.id, reader: reader)
    }

    /// `stream/prepare` of a magnet qbtd does not have (a stream-cache torrent of 40 pieces), its metadata given as
    /// libtorrent's alert would follow it.
    func openStreamCacheTorrent(_ hash: String, _ streams: StreamService, _ engine: MemoryEngine) async throws -> StreamService.Stream {
        let opening = Task {
            try await streams.prepare(.magnet("magnet:?xt=urn:btih:\(hash)&dn=film"), fileIndex: 0, title: nil, trackers: [],
                                      networkMbps: nil)
        }
        try await eventually("the stream cache adds the torrent") { (try? engine.status(hash)) != nil }
        try await engine.setFiles(hash, pieceLength: pieceLength, sizes: [("film.mkv", Int64(pieceLength * 40))])
        await engine.post(.metadataReceived(hash))
        return try await withTimeout(seconds: 5) { try await opening.value }
    }

    /// Waits (bounded) until `condition` holds.
    func eventually(_ what: String, _ condition: @escaping @Sendable () async -> Bool) async throws {
        for _ in 0..<250 {
            if await condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        XCTFail("never: \(what)")
    }

    func testAFreshStreamAsksForItsFirstPiecesBeforeTheEngineIsAskedWhatIsOnDisk() async throws {
        // The trip that fills the piece map must not come first: libtorrent would queue background pieces meanwhile
        // (a fresh stream's first byte 100-950 ms late, one prepare in three).
        let (streams, engine, _) = try await makeStreams(budget: Int64(pieceLength * 10))
        let hash = String(repeating: "e", count: 40)
        let stream = try await openStreamCacheTorrent(hash, streams, engine)
        XCTAssertTrue(stream.owned)
        let asked = await engine.prioritiesAtFirstPieceStates[hash]
        XCTAssertEqual(asked?[0], 7, "the first piece at the top before the map is filled")
        XCTAssertEqual(asked?[1], 6)
        XCTAssertEqual(asked?[39], 6)
        let states = await engine.pieceStatesCalls
        XCTAssertEqual(states, 1, "and the map filled with one call")
        try await streams.stop(stream.id)
    }

    func testAStreamCacheTorrentForgetsPiecesInPlaceAndKeepsItsSeedsWhileItStreams() async throws {
        let (streams, engine, _) = try await makeStreams(budget: Int64(pieceLength * 10))
        let hash = String(repeating: "d", count: 40)
        let stream = try await openStreamCacheTorrent(hash, streams, engine)
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
        try await eventually("and gone from the stream's map too") {
            let have = await engine.have[hash] ?? []
            return (0..<40).allSatisfy { stream.have.has($0) == have.contains($0) }
        }
        XCTAssertNotNil(try? engine.status(hash), "forgotten in place: the torrent is still in the engine")

        try await streams.stop(stream.id)
        try await eventually("with no stream left, it is not streaming") { await !engine.streaming.contains(hash) }
    }
}
