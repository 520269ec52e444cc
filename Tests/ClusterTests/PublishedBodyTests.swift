@testable import Cluster
import Foundation
import QBTCore
import Store
import TorrentEngine
import XCTest

/// What a node publishes of a torrent: packed, read back the same, JSON of earlier versions still read, and hostile or
/// foreign bytes refused with an error, never a trap.
final class PublishedBodyTests: XCTestCase {
    private func filled() -> PublishedView.Body {
        var record = TorrentRecord(id: "ab" + String(repeating: "0", count: 38), name: "Ünïcode — name", metainfo: nil,
                                   magnet: "magnet:?xt=urn:btih:ab", savePath: "/data/x", category: "movies",
                                   addedOn: 1_700_000_000, stopped: true, sequential: true, firstLastPiecePrio: true,
                                   uploadLimit: 1 << 20, downloadLimit: -1, ratioLimit: 1.5, seedingTimeLimit: -2,
                                   inactiveSeedingTimeLimit: 30, autoTMM: true)
        record.completedOn = 1_700_000_100
        record.comment = "a comment"
        record.shareLimitsMode = "MatchAll"
        var facts = TorrentFacts(record: record, tags: ["a", "b c"])
        facts.trackers = ["http://127.0.0.1:1/announce", "udp://127.0.0.1:2"]
        facts.webSeeds = []
        facts.announce = [.warning, .otherError]
        facts.moving = true
        facts.fileFault = FileFault(operation: .write, code: 28, message: "No space left on device")
        var status = TorrentStatus(id: record.id, name: record.name, savePath: record.savePath)
        status.progress = 0.123456789
        status.totalSize = 1 << 40
        status.allTimeUpload = 1 << 53  // the largest number a node reads from another
        status.lastSeenComplete = -(1 << 53)
        status.queuePosition = -1
        status.state = .seeding
        status.distributedCopies = -0.5
        return PublishedView.Body(facts: facts, status: status)
    }

    func testAPackedBodyReadsBackTheSame() throws {
        let body = filled()
        let data = try body.encoded()
        let back = try PublishedView.Body(decoding: data)
        XCTAssertEqual(back.facts, body.facts)
        XCTAssertEqual(back.status, body.status)
        XCTAssertLessThan(data.count, try JSONEncoder().encode(body).count / 2)
    }

    func testTheJSONOfEarlierVersionsIsStillRead() throws {
        var body = filled()
        body.facts.fileFault = nil  // earlier versions wrote an operation as {"write":{}}
        let back = try PublishedView.Body(decoding: try JSONEncoder().encode(body))
        XCTAssertEqual(back.facts, body.facts)
        XCTAssertEqual(back.status, body.status)
    }

    /// Sums of many (a listing's rates) and differences of two (what is left to download) stay far from overflow: a
    /// larger number is written as ±2^53 (the torrent stays listed on the other nodes), and bytes holding a larger
    /// one are refused.
    func testNumbersAreKeptWithinTwoToThe53() throws {
        for (upload, seen) in [(Int64(1) << 53 + 1, Int64(0)), (0, -(Int64(1) << 53) - 1), (.max, 0), (0, .min)] {
            var body = filled()
            body.status.allTimeUpload = upload
            body.status.lastSeenComplete = seen
            body.facts.record.uploadLimit = Int.max  // a client's limit of 2^63 - 1
            let back = try PublishedView.Body(decoding: try body.encoded())
            XCTAssertEqual(back.status.allTimeUpload, min(upload, 1 << 53))
            XCTAssertEqual(back.status.lastSeenComplete, max(seen, -(1 << 53)))
            XCTAssertEqual(back.facts.record.uploadLimit, 1 << 53)
        }
        for beyond in [Int64(1) << 53 + 1, -(Int64(1) << 53) - 1, .max, .min] {
            let sink = PackedSink(bytes: [])
            sink.signed(beyond)
            XCTAssertThrowsError(try PackedDecoder().decode(Int64.self, from: sink.bytes), "\(beyond)") { error in
                guard case PackedError.corrupt = error else { return XCTFail("\(error)") }
            }
        }
        let sink = PackedSink(bytes: [])
        sink.varint(1 << 53 + 1)
        XCTAssertThrowsError(try PackedDecoder().decode(UInt64.self, from: sink.bytes))
        XCTAssertThrowsError(try PackedDecoder().decode(Int.self, from: [1, 2], at: 3))
        XCTAssertThrowsError(try PackedDecoder().decode(Int.self, from: [1, 2], at: -1))
    }

    func testAnotherLayoutIsToldNotMisread() throws {
        var data = try filled().encoded()
        data[3] ^= 0xff
        XCTAssertThrowsError(try PublishedView.Body(decoding: data)) { error in
            guard case PackedError.unsupported(let why) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(why.contains("one qbtd version"), why)
        }
    }

    func testEveryTruncationAndCorruptionIsAnErrorNotATrap() throws {
        let data = try filled().encoded()
        for n in 0..<data.count {
            XCTAssertThrowsError(try PublishedView.Body(decoding: data.prefix(n)), "cut at \(n)")
        }
        XCTAssertThrowsError(try PublishedView.Body(decoding: data + [0]))
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2000 {  // bytes flipped after the header: an error or some value, never a crash
            var bad = data
            for _ in 0..<3 { bad[Int.random(in: 9..<bad.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            _ = try? PublishedView.Body(decoding: bad)
        }
        var huge: [UInt8] = [PublishedView.Body.packed]
        withUnsafeBytes(of: PublishedView.Body.layout.littleEndian) { huge.append(contentsOf: $0) }
        huge += [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]  // a length of 2^64-ish
        XCTAssertThrowsError(try PublishedView.Body(decoding: Data(huge)))
    }

    func testPackingIsFasterThanJSON() throws {
        // Not a timing assertion: prints the figures (Benchmarks/cluster.py measures what the nodes do with them).
        let data = try filled().encoded(), json = try JSONEncoder().encode(filled())
        let clock = ContinuousClock()
        let packed = clock.measure { for _ in 0..<2000 { _ = try? PublishedView.Body(decoding: data) } }
        let plain = clock.measure { for _ in 0..<2000 { _ = try? JSONDecoder().decode(PublishedView.Body.self, from: json) } }
        print("decoding 2000 bodies: packed \(packed) (\(data.count) bytes), JSON \(plain) (\(json.count) bytes)")
    }
}
