import XCTest

@testable import HTTPKit
@testable import WebAPI
import FormData
import QBTCore

final class ParsingTests: XCTestCase {
    func testMultipartFieldsAndFiles() throws {
        let body = "--XyZ\r\nContent-Disposition: form-data; name=\"urls\"\r\n\r\nmagnet:?a\nmagnet:?b\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"torrents\"; filename=\"a.torrent\"\r\n"
            + "Content-Type: application/x-bittorrent\r\n\r\nd4:infoe\r\n--XyZ--\r\n"
        let p = try Multipart.parse(Array(body.utf8), boundary: "XyZ")
        XCTAssertEqual(p.fields["urls"], "magnet:?a\nmagnet:?b")
        XCTAssertEqual(p.files, [UploadedFile(field: "torrents", filename: "a.torrent", data: Array("d4:infoe".utf8))])
        XCTAssertEqual(Multipart.boundary(fromContentType: "multipart/form-data; boundary=\"XyZ\""), "XyZ")
    }

    func testMultipartRejectsTruncatedBodies() {
        let body = "--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nno end"
        XCTAssertThrowsError(try Multipart.parse(Array(body.utf8), boundary: "XyZ"))
        XCTAssertThrowsError(try Multipart.parse(Array("garbage".utf8), boundary: "XyZ"))
    }

    func testFormURLEncoded() {
        let f = FormURLEncoded.parse("hashes=a%7Cb&deleteFiles=true&x=1+2&empty=&=skip")
        XCTAssertEqual(f, ["hashes": "a|b", "deleteFiles": "true", "x": "1 2", "empty": ""])
    }

    func testBooleansAreOnlyTrueOrFalse() {
        let p = Parameters(fields: ["a": "TRUE", "b": "false", "c": "1", "d": "yes"])
        XCTAssertEqual(p.bool("a"), true)
        XCTAssertEqual(p.bool("b"), false)
        XCTAssertNil(p.bool("c"))
        XCTAssertNil(p.bool("d"))
        XCTAssertNil(p.bool("missing"))
        XCTAssertThrowsError(try p.required("missing")) { XCTAssertEqual($0 as? QBitError, .missingParameter("missing")) }
    }

    func testPeerParsing() {
        XCTAssertEqual(PeerAddress.parse("127.0.0.1:6881")?.port, 6881)
        XCTAssertEqual(PeerAddress.parse("[::1]:80")?.host, "::1")
        XCTAssertNil(PeerAddress.parse("127.0.0.1:abc"))
        XCTAssertNil(PeerAddress.parse("127.0.0.1:0"))
        XCTAssertNil(PeerAddress.parse("example.com:80"))
        XCTAssertNil(PeerAddress.parse("1.2.3.4"))
    }

    func testCategoryNames() {
        XCTAssertTrue(TorrentLabels.validCategory("tv/shows"))
        XCTAssertFalse(TorrentLabels.validCategory("/abs"))
        XCTAssertFalse(TorrentLabels.validCategory("a//b"))
        XCTAssertFalse(TorrentLabels.validCategory("a/../b"))
    }

    func testTrackerTiersFollowBlankLines() {
        let entries = TorrentsController.trackerEntries("http://a/\nhttp://b/\n\n http://c/ \r\n\n\nudp://d/")
        XCTAssertEqual(entries.map(\.url), ["http://a/", "http://b/", "http://c/", "udp://d/"])
        XCTAssertEqual(entries.map(\.tier), [0, 0, 1, 3])
    }

    func testMagnetEscapesAsQtDoes() {
        XCTAssertEqual(TorrentView.percentEncoded("http://127.0.0.1:9/a b~"), "http%3A%2F%2F127.0.0.1%3A9%2Fa%20b~")
        XCTAssertEqual(TorrentView.percentEncoded("é"), "%C3%A9")
    }
}

final class AuthorizationParsingTests: XCTestCase {
    func testTheSchemeIsMatchedWithoutCaseAndTheCredentialTrimmed() {
        XCTAssertEqual(APIRouter.credential(authorization: "Bearer qbt_abc", scheme: "Bearer"), "qbt_abc")
        XCTAssertEqual(APIRouter.credential(authorization: "bEARER \t qbt_abc \t", scheme: "Bearer"), "qbt_abc")
        XCTAssertEqual(APIRouter.credential(authorization: "Bearer    ", scheme: "Bearer"), "")
        XCTAssertEqual(APIRouter.credential(authorization: "Basic dXNlcjpwYXNz", scheme: "Basic"), "dXNlcjpwYXNz")
        XCTAssertNil(APIRouter.credential(authorization: "Bearer", scheme: "Bearer"))
        XCTAssertNil(APIRouter.credential(authorization: "Bearer ", scheme: "Bearer"))
        XCTAssertNil(APIRouter.credential(authorization: "Basic qbt_abc", scheme: "Bearer"))
        XCTAssertNil(APIRouter.credential(authorization: "Bearerqbt_abc", scheme: "Bearer"))
        XCTAssertNil(APIRouter.credential(authorization: "Bérer qbt_abc", scheme: "Bearer"))
        XCTAssertNil(APIRouter.credential(authorization: nil, scheme: "Bearer"))
    }
}
