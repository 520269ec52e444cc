@testable import Cluster
import XCTest

/// Where a moved torrent lands on its target, and the source's move session's address as the catalogue holds it.
final class TorrentMovesTests: XCTestCase {
    func testAFolderUnderTheSourcesDefaultGoesUnderTheTargets() {
        XCTAssertEqual(TorrentMoves.mapped("/srv/a", from: "/srv/a", to: "/data/b"), "/data/b")
        XCTAssertEqual(TorrentMoves.mapped("/srv/a/", from: "/srv/a", to: "/data/b/"), "/data/b")
        XCTAssertEqual(TorrentMoves.mapped("/srv/a/films/2024", from: "/srv/a/", to: "/data/b"), "/data/b/films/2024")
    }

    func testAnyOtherFolderKeepsItsPath() {
        XCTAssertEqual(TorrentMoves.mapped("/nas/films", from: "/srv/a", to: "/data/b"), "/nas/films")
        XCTAssertEqual(TorrentMoves.mapped("/srv/abc", from: "/srv/a", to: "/data/b"), "/srv/abc")  // not under it
        XCTAssertEqual(TorrentMoves.mapped("/srv/a/x", from: nil, to: "/data/b"), "/srv/a/x")    // source unknown
        XCTAssertEqual(TorrentMoves.mapped("/srv/a/x", from: "", to: "/data/b"), "/srv/a/x")
    }

    func testPeerAddresses() {
        XCTAssertTrue(TorrentMoves.hostPort("10.0.0.2:6881")! == ("10.0.0.2", 6881))
        XCTAssertTrue(TorrentMoves.hostPort("[fd00::2]:51413")! == ("fd00::2", 51413))
        XCTAssertNil(TorrentMoves.hostPort(""))
        XCTAssertNil(TorrentMoves.hostPort("10.0.0.2:0"))
        XCTAssertNil(TorrentMoves.hostPort(":6881"))
        XCTAssertNil(TorrentMoves.hostPort("10.0.0.2:port"))
    }
}
