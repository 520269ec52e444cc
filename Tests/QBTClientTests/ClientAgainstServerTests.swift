import Foundation
import XCTest

@testable import QBTClient
import ServerTestSupport

/// `QBTClient` against the same `buildApplication` that `qbtd` runs, on a real socket.
final class ClientAgainstServerTests: XCTestCase {
    func withServer(_ body: (URL) async throws -> Void) async throws {
        try await withLoopbackServer(password: "secret") { port in try await body(URL(string: "http://127.0.0.1:\(port)")!) }
    }

    func testLoginAndTorrentLifecycle() async throws {
        try await withServer { base in
            let client = QBTClient(baseURL: base)
            do { try await client.login(username: "admin", password: "wrong"); XCTFail("wrong password accepted") }
            catch let error as QBTClientError { XCTAssertEqual(error, .loginFailed(url: base.absoluteString)); XCTAssertEqual(error.exitCode, 4) }
            try await client.login(username: "admin", password: "secret")
            guard case .cookie(let pair) = await client.credential else { return XCTFail("no session cookie") }
            XCTAssertTrue(pair.hasPrefix("QBT_SID_"))  // the default profile, 5.3
            let version = try await client.appVersion()
            XCTAssertEqual(version, "v5.3.0")
            let speaksStopStart = try await client.speaksStopStart()
            XCTAssertTrue(speaksStopStart)

            let magnet = "magnet:?xt=urn:btih:" + String(repeating: "ab", count: 20) + "&dn=client-test"
            var add = AddRequest()
            add.urls = [magnet]
            add.stopped = true
            add.category = "linux"
            try await client.call("torrents/createCategory", .form([("category", "linux"), ("savePath", "")]))
            try await client.add(add)
            let hash = try XCTUnwrap(InfoHash.ofMagnet(magnet))
            let listed = try await client.torrents(TorrentQuery(category: "linux"))
            XCTAssertEqual(listed.map(\.hash), [hash])
            XCTAssertEqual(listed.first?.name, "client-test")
            let resolved = try await client.resolve(["abab"])
            XCTAssertEqual(resolved, [hash])

            try await client.torrentsAction("addTags", hashes: [hash], [("tags", "a,b")])
            let tags = try await client.tags()
            XCTAssertEqual(Set(tags), ["a", "b"])
            try await client.setRunning(true, hashes: [hash])
            try await client.delete(hashes: [hash], deleteFiles: true)
            let remaining = try await client.torrents()
            XCTAssertTrue(remaining.isEmpty)
            do { _ = try await client.resolve(["abab"]); XCTFail("resolved a removed torrent") }
            catch let error as QBTClientError { XCTAssertEqual(error.exitCode, 5) }
            do { _ = try await client.properties(hash); XCTFail("properties of a removed torrent") }
            catch let error as QBTClientError { XCTAssertEqual(error.exitCode, 5, "\(error)") }
        }
    }

    func testUnreachableServerIsOneClearError() async throws {
        let client = QBTClient(baseURL: URL(string: "http://127.0.0.1:1")!, timeout: 5)
        do { _ = try await client.appVersion(); XCTFail("reached port 1") } catch let error as QBTClientError {
            XCTAssertEqual(error.exitCode, 3)
            XCTAssertTrue(error.description.hasPrefix("cannot reach http://127.0.0.1:1"), error.description)
        }
    }

    func testInfoHashes() throws {
        XCTAssertEqual(InfoHash.hex(SHA1.digest(Array("abc".utf8))), "a9993e364706816aba3e25717850c26c9cd0d89d")
        XCTAssertEqual(InfoHash.hex(SHA1.digest([UInt8](repeating: 0x61, count: 1000))), "291e9a6c66994949b57ba5e650361e98fc36b1ba")
        XCTAssertEqual(InfoHash.hex(SHA256.digest(Array("abc".utf8))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(InfoHash.hex(SHA256.digest([UInt8](repeating: 0x61, count: 1000))), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
        let hybrid = Data("d4:infod12:meta versioni2e4:name1:aee".utf8)
        XCTAssertEqual(InfoHash.ofMetainfo(hybrid), String(InfoHash.hex(SHA256.digest(Array("d12:meta versioni2e4:name1:ae".utf8))).prefix(40)))
        let metainfo = Data("d8:announce3:url4:infod4:name1:a6:lengthi1eee".utf8)
        XCTAssertEqual(InfoHash.ofMetainfo(metainfo), InfoHash.hex(SHA1.digest(Array("d4:name1:a6:lengthi1ee".utf8))))
        XCTAssertNil(InfoHash.ofMetainfo(Data("garbage".utf8)))
        XCTAssertNil(InfoHash.ofMetainfo(Data(String(repeating: "l", count: 10_000).utf8)))
        XCTAssertEqual(InfoHash.ofMagnet("magnet:?xt=urn:btih:VOQSSR5LIZ5TWSQZDPQWUZ6Y4JWMCD4O"), "aba12947ab467b3b4a191be16a67d8e26cc10f8e")
        XCTAssertTrue(InfoHash.isValidMagnet("magnet:?dn=x&xt=urn:btih:" + String(repeating: "0", count: 40)))
        XCTAssertFalse(InfoHash.isValidMagnet("magnet:?xt=urn:btih:nothex"))
        XCTAssertFalse(InfoHash.isValidMagnet("http://example.invalid/"))
        XCTAssertEqual(try QBTClient.parseURL("127.0.0.1:8080/api/v2/").absoluteString, "http://127.0.0.1:8080")
        XCTAssertThrowsError(try QBTClient.parseURL("ftp://x"))
        XCTAssertTrue(APIVersion("2.8.19") < APIVersion("2.11"))
    }
}
