import Foundation
import XCTest

@testable import Uploads

final class UploadsTests: XCTestCase {
    /// The parser gives the same parts whatever the chunking, down to one byte at a time.
    func testMultipartSurvivesAnyChunking() throws {
        // Near misses of the delimiter inside the data (a real one cannot occur there: the sender picks the boundary).
        let payload = (0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) } + Array("\r\n--XyY not yet\r\n--Xy".utf8)
        var body = Array("--XyZ\r\nContent-Disposition: form-data; name=\"path\"\r\n\r\nsub/dir\r\n".utf8)
        body += Array("--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a;b \\\"c\\\".bin\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
        body += payload + Array("\r\n--XyZ--\r\nepilogue".utf8)
        for size in [1, 2, 7, 70, 1000, body.count] {
            var parser = MultipartStreamParser(boundary: "XyZ")
            var parts: [(String, String?)] = []
            var data: [String: [UInt8]] = [:]
            var current = ""
            for start in stride(from: 0, to: body.count, by: size) {
                let chunk = Array(body[start..<min(start + size, body.count)])
                try chunk.withUnsafeBytes { raw in
                    try parser.feed(raw) { event in
                        switch event {
                        case .part(let name, let filename, _): parts.append((name, filename)); current = name
                        case .data(let bytes): data[current, default: []] += Array(bytes)
                        case .partEnd: break
                        }
                    }
                }
            }
            try parser.finish()
            XCTAssertEqual(parts.map(\.0), ["path", "file"], "chunk \(size)")
            XCTAssertEqual(parts[1].1, "a;b \"c\".bin")
            XCTAssertEqual(data["path"], Array("sub/dir".utf8))
            XCTAssertEqual(data["file"], payload, "chunk \(size)")
        }
    }

    func testTruncatedAndBoundlessBodiesAreErrors() throws {
        var parser = MultipartStreamParser(boundary: "XyZ")
        let body = Array("--XyZ\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x\"\r\n\r\npartial".utf8)
        try body.withUnsafeBytes { try parser.feed($0) { _ in } }
        XCTAssertThrowsError(try parser.finish())
        var none = MultipartStreamParser(boundary: "XyZ")
        let junk = [UInt8](repeating: 0x41, count: 70 * 1024)
        XCTAssertThrowsError(try junk.withUnsafeBytes { try none.feed($0) { _ in } })
        XCTAssertEqual(MultipartStreamParser.boundary(fromContentType: "multipart/form-data; boundary=\"a b\""), "a b")
        XCTAssertNil(MultipartStreamParser.boundary(fromContentType: "multipart/form-data"))
        XCTAssertNil(MultipartStreamParser.boundary(fromContentType: "multipart/form-data; boundary=" + String(repeating: "x", count: 71)))
    }

    func testNames() throws {
        XCTAssertEqual(try UploadName.sanitize("dir/./sub//file.txt"), "dir/sub/file.txt")
        XCTAssertEqual(try UploadName.sanitize("win\\path\\f.txt"), "win/path/f.txt")
        XCTAssertEqual(try UploadName.sanitize("Cafe\u{301}.txt"), "Café.txt")
        XCTAssertThrowsError(try UploadName.sanitize("../etc/passwd")) { XCTAssertEqual($0 as? UploadName.Problem, .traversal) }
        XCTAssertThrowsError(try UploadName.sanitize("a/../../b")) { XCTAssertEqual($0 as? UploadName.Problem, .traversal) }
        XCTAssertThrowsError(try UploadName.sanitize("/etc/passwd")) { XCTAssertEqual($0 as? UploadName.Problem, .absolute) }
        XCTAssertThrowsError(try UploadName.sanitize("C:\\x")) { XCTAssertEqual($0 as? UploadName.Problem, .absolute) }
        XCTAssertThrowsError(try UploadName.sanitize("a\u{0}b")) { XCTAssertEqual($0 as? UploadName.Problem, .control) }
        XCTAssertThrowsError(try UploadName.sanitize("a\nb")) { XCTAssertEqual($0 as? UploadName.Problem, .control) }
        XCTAssertThrowsError(try UploadName.sanitize(String(repeating: "x", count: 256))) { XCTAssertEqual($0 as? UploadName.Problem, .tooLong) }
        XCTAssertThrowsError(try UploadName.sanitize(" / . /")) { XCTAssertEqual($0 as? UploadName.Problem, .empty) }
    }

    func testSinkPlacesWithNumberedNamesAndCleansUp() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sink-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for expected in ["a.txt", "a (1).txt"] {
            let sink = try FileSink(directory: dir, name: "a.txt", margin: 0, journal: nil)
            try Array("hello".utf8).withUnsafeBytes { try sink.write($0) }
            XCTAssertEqual(try sink.place(overwrite: false), dir + "/" + expected)
            XCTAssertEqual(sink.sha256, "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")
        }
        let dropped = try FileSink(directory: dir, name: "deep/er/b.bin", margin: 0, journal: nil)
        try Array("x".utf8).withUnsafeBytes { try dropped.write($0) }
        dropped.abort()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).sorted(), ["a (1).txt", "a.txt"])
    }

    /// A crash leaves temp files beside destinations anywhere; the journal lists them for the next start.
    func testJournalSweepsWhatACrashLeft() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)").path
        let elsewhere = root + "/category"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let journal = TempFileJournal(uploadsDirectory: root + "/uploads")
        let sink = try FileSink(directory: elsewhere, name: "kept.txt", margin: 0, journal: journal)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: journal.folder).count, 1)
        _ = try sink.place(overwrite: false)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: journal.folder), [], "placed: note gone")

        // What SIGKILL leaves: notes and their files. A tus file with a record stays; a note naming a file that is not
        // a temp file never removes it.
        let orphan = elsewhere + "/" + FileSink.tempPrefix + "1.part", live = elsewhere + "/.qbtd-tus-2.part"
        let userFile = elsewhere + "/kept.txt"
        for path in [orphan, live] {
            _ = try journal.note(path)
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
        }
        _ = try journal.note(userFile)
        journal.sweep(keeping: [live])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere).sorted(), [".qbtd-tus-2.part", "kept.txt"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: journal.folder), [])
    }

    /// Direct and buffered blocks mix in one file: a resumed upload starts off the block grid, drains mid-block (as a
    /// tus commit does) and ends partial; the file and the hash must be the bytes handed over, on disk and on tmpfs.
    func testWriterKeepsEveryByteOnAndOffTheBlockGrid() async throws {
        let head = 12_345, size = 5 * BackgroundWriter.block + 777
        let bytes = (0..<(head + size)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        for folder in [FileManager.default.temporaryDirectory.path, "/dev/shm"] where FileManager.default.fileExists(atPath: folder) {
            let path = folder + "/writer-\(UUID().uuidString)"
            defer { unlink(path) }
            let fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0o644)
            XCTAssertGreaterThanOrEqual(fd, 0)
            defer { close(fd) }
            XCTAssertEqual(bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, head, 0) }, head)
            let digest = RunningDigest("sha256")!
            let writer = BackgroundWriter(fd: fd, position: Int64(head), digests: [digest])
            var offset = head, step = 1
            while offset < bytes.count {
                let end = min(offset + step, bytes.count)
                await writer.ready(for: end - offset)
                try bytes[offset..<end].withUnsafeBytes { try writer.write($0) }
                if offset < 3 << 20, end >= 3 << 20 { try writer.drain() }
                offset = end
                step = step * 3 + 101
            }
            try writer.drain()
            let written = try Data(contentsOf: URL(fileURLWithPath: path))
            XCTAssertEqual(written.count, bytes.count, folder)
            XCTAssertTrue(written == Data(bytes), folder)
            let expected = RunningDigest("sha256")!
            bytes[head...].withUnsafeBytes { expected.update($0) }
            XCTAssertEqual(digest.hex, expected.hex, folder)
        }
    }
}
