import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
import XCTest

@testable import HTTPKit

/// Answers sent as they are made: gzipped a part at a time into one valid member, and a client's lane held until
/// the last part is sent.
final class StreamedAnswerTests: XCTestCase {
    /// Keeps what a body writes, as a connection would send it.
    final class Sink: @unchecked Sendable {
        var bytes: [UInt8] = []
        var writes = 0
        var finished = false
    }

    struct SinkWriter: ResponseBodyWriter {
        let sink: Sink
        mutating func write(_ buffer: ByteBuffer) async throws {
            sink.bytes.append(contentsOf: buffer.readableBytesView)
            sink.writes += 1
        }
        consuming func finish(_ trailingHeaders: HTTPFields?) async throws { sink.finished = true }
    }

    func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("qbtd-gz-\(UUID().uuidString).gz")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-dc", file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let out = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "gzip -d refused the member")
        return Array(out)
    }

    func testAListingInPartsIsOneGzipMember() async throws {
        // 3,000 elements of about 300 bytes: several parts, some compressing to nothing until zlib has a block.
        let parts = JSONParts(head: Array("[".utf8), count: 3000, tail: Array("]".utf8)) { i, out in
            if i == 17 { return false }  // gone since: left out
            out.writeString(#"{"n":\#(i),"name":"\#(String(repeating: "x", count: 280 + i % 13))"}"#)
            return true
        }
        var expected: [UInt8] = Array("[".utf8)
        for i in 0..<3000 where i != 17 {
            if expected.count > 1 { expected.append(UInt8(ascii: ",")) }
            expected.append(contentsOf: #"{"n":\#(i),"name":"\#(String(repeating: "x", count: 280 + i % 13))"}"#.utf8)
        }
        expected.append(contentsOf: Array("]".utf8))

        let response = await ResponseCompression.compressed(Answer.jsonParts(.ok, parts, lane: nil))
        XCTAssertEqual(response.headers[.contentEncoding], "gzip")
        XCTAssertNil(response.body.contentLength, "sent chunked: the length is not known when the headers go")
        let sink = Sink()
        try await response.body.write(SinkWriter(sink: sink))
        XCTAssertTrue(sink.finished)
        XCTAssertLessThan(sink.bytes.count, expected.count / 10)
        XCTAssertEqual(try gunzip(sink.bytes), expected)
    }

    func testAnEventStreamIsNotCompressed() async throws {
        let response = Response(status: .ok, headers: [.contentType: "text/event-stream"], body: ResponseBody { writer in
            try await writer.write(ByteBuffer(string: String(repeating: "data: {}\n\n", count: 500)))
            try await writer.finish(nil)
        })
        let plain = await ResponseCompression.compressed(response)
        XCTAssertNil(plain.headers[.contentEncoding])
    }

    func testAListingKeepsItsHeavyLaneUntilSent() async throws {
        let lanes = ClientLanes()
        let parts = JSONParts(head: [], count: 0, tail: Array("[]".utf8)) { _, _ in false }
        // The answer alone holds the first call's place: were it dropped or left early, the second would go in.
        let response = Answer.jsonParts(.ok, parts, lane: await lanes.enter("c", heavy: true))
        let entered = Mutex(false)
        let second = Task {
            let pass = await lanes.enter("c", heavy: true)
            entered.withLock { $0 = true }
            return pass
        }
        // The second heavy call waits while the first answer is unsent.
        for _ in 0..<1000 where lanes.waitingOrRunning("c") < 2 { await Task.yield() }
        XCTAssertEqual(lanes.waitingOrRunning("c"), 2)
        for _ in 0..<200 { await Task.yield() }
        XCTAssertFalse(entered.withLock { $0 }, "a second expensive call went in while the first answer was unsent")
        let sink = Sink()
        try await response.body.write(SinkWriter(sink: sink))
        XCTAssertEqual(sink.bytes, Array("[]".utf8))
        let pass = await second.value  // let in once the first was sent
        XCTAssertEqual(lanes.waitingOrRunning("c"), 1)
        pass.leave()
        pass.leave()  // leaving twice frees one place only
        XCTAssertEqual(lanes.clients, 0)
        // A pass dropped unsent (the connection went) frees its place too.
        do { _ = await lanes.enter("d", heavy: true) }
        XCTAssertEqual(lanes.clients, 0)
    }
}
