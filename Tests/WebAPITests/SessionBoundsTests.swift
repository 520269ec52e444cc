@testable import HTTPKit
@testable import WebAPI
import XCTest

/// The failed-login and ban tables, and the sessions, stay bounded whatever the number of addresses.
final class SessionBoundsTests: XCTestCase {
    func testFailuresAndBansStayBounded() async {
        var policy = SessionManager.Policy()
        policy.maxFailures = 1  // every failure bans: the ban table grows as fast as it can
        let sessions = SessionManager(policy: policy)
        let flood = SessionManager.maxTrackedAddresses + 2_500
        for i in 0..<flood { await sessions.recordFailure("2001:db8::\(String(i, radix: 16))") }
        let tracked = await sessions.trackedAddresses
        XCTAssertLessThanOrEqual(tracked.failures, SessionManager.maxTrackedAddresses)
        XCTAssertLessThanOrEqual(tracked.bans, SessionManager.maxTrackedAddresses)
        let lastBanned = await sessions.isBanned("2001:db8::\(String(flood - 1, radix: 16))")
        XCTAssertTrue(lastBanned, "the newest offender is banned")
    }

    func testSessionsStayBounded() async {
        let sessions = SessionManager()
        var first: String?
        for i in 0...SessionManager.maxSessions {
            let id = await sessions.open(for: "127.0.0.1")
            if i == 0 { first = id }
        }
        let count = await sessions.sessionCount
        XCTAssertEqual(count, SessionManager.maxSessions)
        let oldest = await sessions.touch(first)
        XCTAssertNil(oldest, "the session unused the longest made room")
    }
}
