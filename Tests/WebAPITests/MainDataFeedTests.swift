import EngineTestSupport
import Foundation
import NIOCore
import Synchronization
import XCTest

@testable import QBTCore
@testable import WebAPI

/// The pushed feed: one answer per number, shared; a client that fell out of the kept snapshots is told so.
final class MainDataFeedTests: XCTestCase {
    func testAnswersFromHeldNumbersAndDropsOnesThatFellBehind() async throws {
        let dir = try temporaryFolder("qbtd-feed")
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try await MemoryServer.start(in: dir)
        let rows = RowCache(identity: .qBittorrent5_1)
        let board = await server.service.currentBoard()
        let tick = Mutex(0)
        // Every look finds one more category: every snapshot is news.
        let feed = MainDataFeed(make: {
            let n = tick.withLock { $0 += 1; return $0 }
            return MainData(rows: rows.rows(for: board), rest: ["categories": .object(["c\(n)": .object([:])]), "tags": .array([]),
                                                             "trackers": .object([:]), "server_state": .object([:])])
        }, every: .milliseconds(2), keep: 4)

        let (id, updates) = await feed.listen()
        var iterator = updates.makeAsyncIterator()
        _ = await iterator.next()
        guard case .update(let first, let full) = await feed.answer(from: 0, resuming: true) else { return XCTFail("no first event") }
        XCTAssertTrue(String(buffer: full).contains(#""full_update":true"#))

        // Wait (bounded) until `first` is no longer among the four kept.
        var newest = first
        for _ in 0..<2000 where newest < first + 6 {
            try await Task.sleep(for: .milliseconds(2))
            if case .update(let rid, _) = await feed.answer(from: 0, resuming: true) { newest = rid }
        }
        XCTAssertGreaterThanOrEqual(newest, first + 6)
        guard case .behind = await feed.answer(from: first, resuming: false) else { return XCTFail("a client that fell behind is told") }
        guard case .update(_, let again) = await feed.answer(from: first, resuming: true) else { return XCTFail("a resume gets a full update") }
        XCTAssertTrue(String(buffer: again).contains(#""full_update":true"#))

        // From a kept number: a diff with only what changed, the same bytes for every client at that number.
        guard case .update(let rid, let diff) = await feed.answer(from: newest - 1, resuming: false), rid >= newest else {
            return XCTFail("no diff from a kept number")
        }
        let text = String(buffer: diff)
        XCTAssertFalse(text.contains("full_update"))
        XCTAssertTrue(text.contains(#""categories":{"#), text)
        // (the feed ticks every 2 ms: compared only when no tick came between the two answers)
        if case .update(let again, let same) = await feed.answer(from: newest - 1, resuming: false), again == rid {
            XCTAssertEqual(same, diff)
        }

        await feed.leave(id)
        let listeners = await feed.count
        XCTAssertEqual(listeners, 0)
    }
}
