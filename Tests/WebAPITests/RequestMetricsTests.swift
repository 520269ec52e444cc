import Hummingbird
import XCTest

@testable import HTTPKit
@testable import WebAPI

/// The route label of a request: known actions by name, qbtd's areas by area, nothing a client can invent.
final class RequestMetricsTests: XCTestCase {
    func testRoutesAreNamedWithoutLettingClientsMakeUpSeries() {
        let known: Set<String> = ["torrents/info", "sync/maindata"]
        let route = { (path: String) in RequestMetricsMiddleware<QBTRequestContext>.route(path, known: known) }
        XCTAssertEqual(route("/api/v2/torrents/info"), "torrents/info")
        XCTAssertEqual(route("/api/v2/sync/maindata"), "sync/maindata")
        XCTAssertEqual(route("/api/v2/torrents/made-up-\(UUID())"), "api/other")
        XCTAssertEqual(route("/api/v2/tus/0f3a9c"), "tus")
        XCTAssertEqual(route("/api/v2/uploads"), "uploads")
        XCTAssertEqual(route("/stream/abcdef"), "stream playback")
        XCTAssertEqual(route("/torrent/abcdef"), "stream playback")
        XCTAssertEqual(route("/music/tracks/4/segments/2.mp3"), "music/tracks")
        XCTAssertEqual(route("/music/\(UUID())"), "music/other")
        XCTAssertEqual(route("/metrics"), "metrics")
        XCTAssertEqual(route("/"), "/")
        XCTAssertEqual(route("/\(UUID())/x"), "other")
    }
}
