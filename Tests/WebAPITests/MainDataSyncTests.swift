import EngineTestSupport
import Foundation
import EncodingBenchmark
import MemoryEngine
import Store
import NIOCore
import XCTest

@testable import QBTCore
@testable import TorrentEngine
@testable import HTTPKit
@testable import WebAPI

/// `sync/maindata` over the in-memory engine: shared encoded rows, diffs from what changed.
final class MainDataSyncTests: XCTestCase {
    var dir: URL!

    override func setUp() async throws { dir = try temporaryFolder("qbtd-sync") }

    override func tearDown() async throws { try? FileManager.default.removeItem(at: dir) }

    func makeService() async throws -> (TorrentService, MemoryEngine) {
        let server = try await MemoryServer.start(in: dir)
        return (server.service, server.engine)
    }

    static func magnet(_ n: Int) -> ParsedTorrent { MemoryServer.magnet(n) }

    func poll(_ state: inout MainDataSync, _ service: TorrentService, _ rows: RowCache, rid: Int) async throws -> [String: Any] {
        let data = MainData(rows: rows.rows(for: await service.currentBoard()),
                            rest: ["tags": .array([]), "categories": .object([:]), "trackers": .object([:]),
                                   "server_state": .object(["dl_info_speed": .int(0)])])
        let bytes = state.answer(rid: rid, data: data)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    func testFullThenNothingThenOnlyTheChangedFieldThenRemovals() async throws {
        let (service, engine) = try await makeService()
        let torrents = (1...200).map(Self.magnet)
        _ = await service.add(torrents, options: AddOptions())
        let rows = RowCache(identity: .qBittorrent5_1)
        var state = MainDataSync()

        let full = try await poll(&state, service, rows, rid: 0)
        XCTAssertEqual(full["full_update"] as? Bool, true)
        let all = try XCTUnwrap(full["torrents"] as? [String: [String: Any]])
        XCTAssertEqual(all.count, 200)
        let one = try XCTUnwrap(all[torrents[0].id])
        XCTAssertNil(one["hash"], "maindata's torrent objects have no hash key")
        XCTAssertEqual(one["name"] as? String, "t1")
        XCTAssertNotNil(one["has_metadata"])
        var rid = try XCTUnwrap(full["rid"] as? Int)

        // Nothing changed: the answer is the rid alone.
        let quiet = try await poll(&state, service, rows, rid: rid)
        XCTAssertEqual(Set(quiet.keys), ["rid"])
        rid = quiet["rid"] as! Int

        // One torrent's speed changed: one torrent, the changed keys only.
        try await engine.update(torrents[42].id) { $0.downloadRate = 5000 }
        let diff = try await poll(&state, service, rows, rid: rid)
        let changed = try XCTUnwrap(diff["torrents"] as? [String: [String: Any]])
        XCTAssertEqual(Array(changed.keys), [torrents[42].id])
        XCTAssertEqual(changed[torrents[42].id]?["dlspeed"] as? Int, 5000)
        XCTAssertEqual(changed[torrents[42].id]?.count, 2, "dlspeed and eta, nothing else")
        XCTAssertNil(changed[torrents[42].id]?["name"])
        XCTAssertNil(diff["server_state"])
        rid = diff["rid"] as! Int

        // A removal and an arrival.
        await service.remove([torrents[1].id], deleteFiles: false)
        _ = await service.add([Self.magnet(999)], options: AddOptions())
        let moved = try await poll(&state, service, rows, rid: rid)
        XCTAssertEqual(moved["torrents_removed"] as? [String], [torrents[1].id])
        let arrived = try XCTUnwrap(moved["torrents"] as? [String: [String: Any]])
        XCTAssertEqual(arrived[Self.magnet(999).id]?["name"] as? String, "t999")

        // An unknown rid is a full update again.
        let again = try await poll(&state, service, rows, rid: 12345)
        XCTAssertEqual(again["full_update"] as? Bool, true)
        XCTAssertEqual((again["torrents"] as? [String: Any])?.count, 200)
    }

    /// torrents/info copies a row's pairs in runs: around `hash` and the keys only sync/maindata sends.
    func testTheInfoPlanSkipsSyncOnlyKeysAndPlacesTheHash() {
        typealias Step = RowKeys.InfoStep
        let syncOnly = [false, true, false, false, true]
        XCTAssertEqual(RowKeys.plan(syncOnly: syncOnly, hashIndex: 2), [Step(from: 0, to: 1), .hash, Step(from: 2, to: 4)])
        XCTAssertEqual(RowKeys.plan(syncOnly: syncOnly, hashIndex: 0), [.hash, Step(from: 0, to: 1), Step(from: 2, to: 4)])
        XCTAssertEqual(RowKeys.plan(syncOnly: syncOnly, hashIndex: 5), [Step(from: 0, to: 1), Step(from: 2, to: 4), .hash])
        XCTAssertEqual(RowKeys.plan(syncOnly: [false, false], hashIndex: 1), [Step(from: 0, to: 1), .hash, Step(from: 1, to: 2)])
    }

    func testTorrentsInfoRowsCarryTheHashInKeyOrderAnd46LeavesOut5Fields() async throws {
        let (service, _) = try await makeService()
        _ = await service.add([Self.magnet(5)], options: AddOptions())
        let board = await service.currentBoard()
        for identity in [Identity.qBittorrent4_6, .qBittorrent5_1, .qBittorrent5_2, .qBittorrent5_3] {
            let rows = RowCache(identity: identity).rows(for: board)
            let id = Self.magnet(5).id
            var out: [UInt8] = []
            rows.rows[id]!.writeWithHash(id, keys: rows.keys, into: &out)
            // The pairs laid out at once (into an array or a buffer) are the ones written pair by pair, with the hash
            // (torrents/info, sync-only keys left out) and without (sync/maindata).
            for hash in [id, nil] {
                var laid: [UInt8] = [], slowly: [UInt8] = [], buffer = ByteBuffer()
                rows.rows[id]!.writePairs(rows.keys, hash: hash, into: &laid)
                rows.rows[id]!.writePairsSlowly(rows.keys, hash: hash, into: &slowly)
                rows.rows[id]!.writePairs(rows.keys, hash: hash, into: &buffer)
                XCTAssertEqual(laid, slowly, "\(identity.appVersion), hash \(hash ?? "none")")
                XCTAssertEqual(Array(buffer.readableBytesView), slowly)
            }
            let text = String(decoding: out, as: UTF8.self)
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(out)) as? [String: Any])
            XCTAssertEqual(object["hash"] as? String, id)
            // Keys in Qt's order (sorted), the hash among them.
            let keys = Array(object.keys).sorted()
            let positions = keys.map { text.range(of: "\"\($0)\":")!.lowerBound }
            XCTAssertEqual(positions, positions.sorted())
            let expected = Set(TorrentInfo(board.entries[id]!.view, identity: identity).jsonObject(identity: identity).keys)
            XCTAssertEqual(Set(keys), expected)
            XCTAssertEqual(object["has_metadata"] == nil, identity.profile == .v4_6)
        }
    }

    /// A big library's answers are sent a part at a time; joined, the parts are exactly the whole answers.
    func testPartsJoinToTheWholeAnswers() async throws {
        let (service, _) = try await makeService()
        let rows = RowCache(identity: .qBittorrent5_1)
        let rest: [String: JSONValue] = ["tags": .array([.string("t")]), "categories": .object([:]), "trackers": .object([:]),
                                         "server_state": .object(["dl_info_speed": .int(0)])]
        // No torrents at all: no "torrents" key, as the whole answer.
        let empty = MainData(rows: rows.rows(for: await service.currentBoard()), rest: rest)
        XCTAssertEqual(MainDataSync.fullParts(empty, rid: 3).joined(), MainDataSync.answer(from: nil, to: empty, rid: 3).bytes)
        // Enough torrents for several parts.
        _ = await service.add((1...600).map(Self.magnet), options: AddOptions())
        let board = await service.currentBoard()
        let data = MainData(rows: rows.rows(for: board), rest: rest)
        let whole = MainDataSync.answer(from: nil, to: data, rid: 7).bytes
        XCTAssertGreaterThan(whole.count, JSONParts.partSize)
        XCTAssertEqual(MainDataSync.fullParts(data, rid: 7).joined(), whole)
        let ids = board.order.reversed() + ["0000000000000000000000000000000000000000"]  // one gone: left out, no stray comma
        let current = rows.rows(for: board)
        XCTAssertEqual(TorrentsController.parts(Array(ids), rows: current).joined(), TorrentsController.encode(Array(ids), rows: current))
        XCTAssertEqual(TorrentsController.parts([], rows: current).joined(), Array("[]".utf8))
        _ = try JSONSerialization.jsonObject(with: Data(TorrentsController.parts(Array(ids), rows: current).joined()))
    }

    func testFilesAreWrittenAsTheEncoderWritesThem() throws {
        let files = [
            FileInfo(index: 0, name: "a \"b\"/c\u{e9}.mkv", size: 123, progress: 0.5, priority: 1, is_seed: false,
                     piece_range: [0, 3], availability: 0.25),
            FileInfo(index: 1, name: "d", size: 0, progress: 1, priority: 0, is_seed: nil, piece_range: [3, 3], availability: 1),
        ]
        let mine = try JSONSerialization.jsonObject(with: Data(FileInfo.json(files))) as? NSArray
        let theirs = try JSONSerialization.jsonObject(with: JSONEncoder().encode(files)) as? NSArray
        XCTAssertEqual(mine, theirs)
        XCTAssertEqual(String(decoding: FileInfo.json([]), as: UTF8.self), "[]")
    }

    /// Not a timed assertion: runs the encoding micro-benchmark `make bench` runs (`qbtd-encode-benchmark`) at a
    /// small size, so it cannot rot.
    func testEncodingBenchmarkRuns() async throws {
        let table = try await EncodingBenchmark.run(torrents: 500)
        print(table)
        XCTAssertTrue(table.contains("| 500 torrents | time | bytes |"), table)
    }
}
