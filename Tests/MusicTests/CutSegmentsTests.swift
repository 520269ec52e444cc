import Foundation
@testable import Music
import XCTest

final class CutSegmentsTests: XCTestCase {
    func folder() -> String {
        NSTemporaryDirectory() + "cut-segments-\(UUID().uuidString)"
    }

    func testKeepsSegmentsByVersionAndForgetsTheOldestBeyondItsBudget() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let shelf = CutSegments(directory: dir, budget: 250)
        shelf.store([UInt8](repeating: 1, count: 100), track: 7, version: "10-1", segment: 0)
        shelf.store([UInt8](repeating: 2, count: 100), track: 7, version: "10-1", segment: 1)
        let first = try XCTUnwrap(shelf.stored(track: 7, version: "10-1", segment: 0))
        XCTAssertEqual(first.length, 100)
        XCTAssertEqual(FileManager.default.contents(atPath: first.path), Data(repeating: 1, count: 100))
        XCTAssertNil(shelf.stored(track: 7, version: "10-2", segment: 0), "another version of the file is another segment")
        shelf.store([UInt8](repeating: 1, count: 100), track: 7, version: "10-1", segment: 0)  // stored once only
        XCTAssertEqual(shelf.storedBytes, 200)
        // A third goes over the budget: the oldest goes, from the shelf and from the disk.
        shelf.store([UInt8](repeating: 3, count: 100), track: 8, version: "10-1", segment: 0)
        XCTAssertNil(shelf.stored(track: 7, version: "10-1", segment: 0))
        XCTAssertFalse(FileManager.default.fileExists(atPath: first.path))
        XCTAssertNotNil(shelf.stored(track: 7, version: "10-1", segment: 1))
        XCTAssertNotNil(shelf.stored(track: 8, version: "10-1", segment: 0))
        XCTAssertEqual(shelf.storedBytes, 200)
        shelf.store([UInt8](repeating: 4, count: 300), track: 9, version: "1-1", segment: 0)  // larger than the budget
        XCTAssertNil(shelf.stored(track: 9, version: "1-1", segment: 0))
        shelf.store([], track: 9, version: "1-1", segment: 1)  // nothing to send: never stored
        XCTAssertNil(shelf.stored(track: 9, version: "1-1", segment: 1))
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        XCTAssertEqual(files.count, 2, "no other file is left: \(files)")
        XCTAssertTrue(files.allSatisfy { $0.hasPrefix("7-10-1-1-") || $0.hasPrefix("8-10-1-0-") }, "\(files)")
    }

    func testStartsEmpty() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        CutSegments(directory: dir, budget: 1000).store([1, 2, 3], track: 1, version: "3-1", segment: 0)
        FileManager.default.createFile(atPath: dir + "/left-over.tmp", contents: Data([1]))
        let again = CutSegments(directory: dir, budget: 1000)
        XCTAssertNil(again.stored(track: 1, version: "3-1", segment: 0))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), [])
    }
}
