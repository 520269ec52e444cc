import Foundation
import SystemKit
import XCTest

/// `FileReader`: body reads on threads of their own, the right bytes, errors reported.
final class FileReaderTests: XCTestCase {
    func testItReadsTheBytesAtAnOffsetAndStopsAtTheEnd() async throws {
        let path = NSTemporaryDirectory() + "qbtd-reader-\(UUID().uuidString)"
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fd = open(path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        let reader = FileReader(threads: 2, name: "qbtd-read-test")

        let middle = try await reader.read(fd, at: 12_345, count: 4096)
        XCTAssertEqual(middle, Array(bytes[12_345..<(12_345 + 4096)]))
        let tail = try await reader.read(fd, at: 99_000, count: 4096)
        XCTAssertEqual(tail, Array(bytes[99_000...]), "short only where the file ends")
        let past = try await reader.read(fd, at: 200_000, count: 10)
        XCTAssertEqual(past, [])

        // Many at once: each gets its own bytes, whatever thread ran it.
        let offsets = (0..<64).map { Int64($0 * 1500) }
        let reads = try await withThrowingTaskGroup(of: (Int64, [UInt8]).self) { group in
            for offset in offsets { group.addTask { (offset, try await reader.read(fd, at: offset, count: 1000)) } }
            return try await group.reduce(into: [Int64: [UInt8]]()) { $0[$1.0] = $1.1 }
        }
        for offset in offsets { XCTAssertEqual(reads[offset], Array(bytes[Int(offset)..<Int(offset) + 1000])) }
    }

    func testAFailedReadThrowsItsErrorNumber() async throws {
        do {
            _ = try await FileReader.shared.read(-1, at: 0, count: 16)
            XCTFail("a read of no file answered")
        } catch let failure as FileReader.Failure {
            XCTAssertEqual(failure.errno, EBADF)
        }
        // Work that throws hands its own error back.
        struct Refused: Error {}
        do {
            _ = try await FileReader.shared.run { () throws -> Int in throw Refused() }
            XCTFail("a throwing job answered")
        } catch is Refused {}
    }
}
