import XCTest

@testable import TorrentEngine

/// The periodic fast-resume save: a torrent whose only change is its transfer counters and times waits for the
/// minute's sweep; a change in its pieces or state is saved at the next interval.
final class ResumeMarkTests: XCTestCase {
    func testCountersAndTimesAloneLeaveTheMarkAsItWas() {
        var status = TorrentStatus(id: "a", name: "a", savePath: "/d")
        status.piecesHave = 3
        let before = ResumeMark(status)
        status.allTimeUpload += 1 << 20
        status.sessionUpload += 1 << 20
        status.activeDuration += 15
        status.seedingDuration += 15
        status.uploadRate = 4096
        status.numPeers = 2
        XCTAssertEqual(ResumeMark(status), before)
    }

    func testPiecesStateAndPlaceChangeTheMark() {
        let status = TorrentStatus(id: "a", name: "a", savePath: "/d")
        let before = ResumeMark(status)
        var more = status
        more.piecesHave += 1
        XCTAssertNotEqual(ResumeMark(more), before)
        var partial = status
        partial.totalDone += 16 << 10  // a block of an unfinished piece
        XCTAssertNotEqual(ResumeMark(partial), before)
        var paused = status
        paused.paused = true
        XCTAssertNotEqual(ResumeMark(paused), before)
        var moved = status
        moved.savePath = "/e"
        XCTAssertNotEqual(ResumeMark(moved), before)
    }
}
