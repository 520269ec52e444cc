import XCTest

@testable import Streaming
@testable import TorrentEngine

final class PieceMapTests: XCTestCase {
    func testBitsRunsAndMerges() {
        let map = PieceMap(count: 200)
        XCTAssertFalse(map.has(0))
        XCTAssertTrue(map.insert(3))
        XCTAssertFalse(map.insert(3), "set already")
        XCTAssertFalse(map.insert(200), "out of range")
        XCTAssertFalse(map.has(-1))
        for p in 4..<150 { map.insert(p) }
        XCTAssertEqual(map.firstMissing(from: 3, before: 200), 150)
        XCTAssertEqual(map.firstMissing(from: 3, before: 100), 100, "all there up to the limit")
        XCTAssertEqual(map.firstMissing(from: 0, before: 10), 0)
        map.remove([70, 71])
        XCTAssertEqual(map.firstMissing(from: 3, before: 200), 70)
        XCTAssertEqual(map.firstMissing(from: 72, before: 300), 150)
        for p in 150..<200 { map.insert(p) }
        XCTAssertEqual(map.firstMissing(from: 190, before: 300), 200, "past the end nothing is on disk")

        let merged = map.merge([.have, .missing, .downloading, .have, .have])
        XCTAssertEqual(merged, [0], "only the pieces newly set")
        map.removeAll()
        XCTAssertEqual(map.firstMissing(from: 0, before: 200), 0)
    }
}
