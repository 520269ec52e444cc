import QBTCore
import XCTest
@testable import HTTPKit
@testable import WebAPI

final class SyncStateTests: XCTestCase {
    let collections: Set<String> = ["torrents", "categories", "trackers"]

    func snapshot(_ torrents: [String: JSONValue], tags: [String] = []) -> [String: JSONValue] {
        ["torrents": .object(torrents), "tags": .array(tags.map { .string($0) }), "categories": .object([:]),
         "trackers": .object([:]), "server_state": .object(["dl_info_speed": .int(0)])]
    }

    func testRidHandshakeAndFieldDiffs() {
        var state = SyncState()
        let a: JSONValue = .object(["name": .string("a"), "progress": .double(0)])
        let first = state.answer(rid: 0, data: snapshot(["h1": a]), collections: collections)
        XCTAssertEqual(first["full_update"], .bool(true))
        XCTAssertEqual(first["rid"], .int(1))
        XCTAssertNil(first["categories"])  // empty collections are left out

        let moved: JSONValue = .object(["name": .string("a"), "progress": .double(0.5)])
        let b: JSONValue = .object(["name": .string("b"), "progress": .double(0)])
        let second = state.answer(rid: 1, data: snapshot(["h1": moved, "h2": b], tags: ["x"]), collections: collections)
        XCTAssertNil(second["full_update"])
        XCTAssertEqual(second["rid"], .int(2))
        XCTAssertEqual(second["torrents"], .object(["h1": .object(["progress": .double(0.5)]), "h2": b]))
        XCTAssertEqual(second["tags"], .array([.string("x")]))
        XCTAssertNil(second["server_state"])  // nothing changed there

        let third = state.answer(rid: 2, data: snapshot(["h2": b]), collections: collections)
        XCTAssertEqual(third["torrents_removed"], .array([.string("h1")]))
        XCTAssertEqual(third["tags_removed"], .array([.string("x")]))
        XCTAssertNil(third["torrents"])

        // A rid the server never sent gets a full update.
        let stranger = state.answer(rid: 777, data: snapshot(["h2": b]), collections: collections)
        XCTAssertEqual(stranger["full_update"], .bool(true))
    }

    func testSerializerMatchesJSONAndSortsKeys() throws {
        let value: JSONValue = .object(["b": .array([.int(1), .double(0.5), .null]), "a": .string("q\"\\\n\u{1}é"), "c": .bool(true)])
        let bytes = value.serialized()
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), #"{"a":"q\"\\\n\u0001é","b":[1,0.5,null],"c":true}"#)
        XCTAssertEqual(try JSONDecoder().decode(JSONValue.self, from: Data(bytes)), value)
    }
}

final class WebSecurityTests: XCTestCase {
    func testSubnets() {
        XCTAssertTrue(Subnet("10.0.0.0/8")!.contains("10.1.2.3"))
        XCTAssertFalse(Subnet("10.0.0.0/8")!.contains("11.0.0.1"))
        XCTAssertTrue(Subnet("192.168.1.0/24")!.contains("::ffff:192.168.1.9"))
        XCTAssertTrue(Subnet("fe80::/10")!.contains("fe80::1"))
        XCTAssertNil(Subnet("10.0.0.0/33"))
        XCTAssertNil(Subnet("nonsense"))
    }

    func testCrossSiteRequests() {
        XCTAssertFalse(WebGate.isCrossSite(origin: nil, referer: nil, host: "127.0.0.1:8080", forwardedHost: nil))
        XCTAssertFalse(WebGate.isCrossSite(origin: "http://127.0.0.1:8080", referer: nil, host: "127.0.0.1:8080", forwardedHost: nil))
        XCTAssertTrue(WebGate.isCrossSite(origin: "http://evil.example", referer: nil, host: "127.0.0.1:8080", forwardedHost: nil))
        XCTAssertTrue(WebGate.isCrossSite(origin: nil, referer: "http://127.0.0.1:9999/x", host: "127.0.0.1:8080", forwardedHost: nil))
    }

    func testHostHeaderAndForwardedFor() {
        var policy = WebSecurityPolicy()
        policy.domains = ["*.example.org"]
        policy.reverseProxy = true
        policy.trustedProxies = [Subnet("10.0.0.1")!]
        let gate = WebGate(policy)
        XCTAssertTrue(gate.isValidHost("127.0.0.1:8080", localIP: "127.0.0.1", localPort: 8080))
        XCTAssertFalse(gate.isValidHost("127.0.0.1:9090", localIP: "127.0.0.1", localPort: 8080))
        XCTAssertTrue(gate.isValidHost("box.example.org", localIP: "127.0.0.1", localPort: 8080))
        XCTAssertFalse(gate.isValidHost("evil.test", localIP: "127.0.0.1", localPort: 8080))
        XCTAssertEqual(gate.clientIP(socketIP: "10.0.0.1", forwardedFor: "1.2.3.4, 10.0.0.1"), "1.2.3.4")
        XCTAssertEqual(gate.clientIP(socketIP: "10.0.0.2", forwardedFor: "1.2.3.4"), "10.0.0.2")  // not a trusted proxy
    }
}
