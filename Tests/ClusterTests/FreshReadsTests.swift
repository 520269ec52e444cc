@testable import Cluster
import XCTest

/// The reads a node makes of what other nodes changed, for callers that must see every change acknowledged before
/// they asked: one read at a time, and every caller sees a read that started after it asked.
final class FreshReadsTests: XCTestCase {
    /// A catalogue written to (`version`) and this node's copy of it (`applied`), with a check that reads never overlap.
    private actor Catalogue {
        var version = 0, applied = 0, reading = 0, overlaps = 0, reads = 0
        var failing = false

        func write() -> Int { version += 1; return version }

        func read() async throws {
            reading += 1
            reads += 1
            if reading > 1 { overlaps += 1 }
            let seen = version
            // The database's round trip: some at once (a read can end between a caller's ask and its wait).
            if Bool.random() { await Task.yield() } else { try? await Task.sleep(for: .microseconds(Int.random(in: 0...800))) }
            reading -= 1
            if failing { throw CancellationError() }
            applied = max(applied, seen)
        }

        func fail(_ on: Bool) { failing = on }
    }

    func testEveryCallerSeesWhatWasWrittenBeforeItAskedAndReadsNeverOverlap() async throws {
        let catalogue = Catalogue()
        let reads = FreshReads { try await catalogue.read() }
        let missed = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<400 {
                group.addTask {
                    try await Task.sleep(for: .microseconds(Int.random(in: 0...20_000)))
                    let mine = await catalogue.write()
                    if i % 4 != 0 { await reads.fresh(within: .seconds(30)) } else { try await reads.fresh() }
                    return await catalogue.applied >= mine ? 0 : 1
                }
            }
            return try await group.reduce(0, +)
        }
        let overlaps = await catalogue.overlaps, count = await catalogue.reads
        XCTAssertEqual(missed, 0, "callers that did not see their own write")
        XCTAssertEqual(overlaps, 0, "reads that overlapped")
        XCTAssertLessThan(count, 400, "reads are shared by the callers waiting together")
    }

    /// Two callers at a time, reads often over at once: the read under way at a caller's ask can end before its wait
    /// begins, and a read must still start for it (else it waits out its limit and reads stale).
    func testACallerWhoseReadEndedBeforeItWaitedStillGetsOne() async throws {
        let catalogue = Catalogue()
        let reads = FreshReads { try await catalogue.read() }
        /// Whether the caller saw its write without waiting out its limit.
        @Sendable func ask() async -> Bool {
            let mine = await catalogue.write(), started = ContinuousClock.now
            await reads.fresh(within: .seconds(5))
            let waited = ContinuousClock.now - started, applied = await catalogue.applied
            return waited < .milliseconds(2500) && applied >= mine
        }
        var missed = 0
        for _ in 0..<300 where missed == 0 {
            async let one = ask()
            async let two = ask()
            let (a, b) = await (one, two)
            missed += (a ? 0 : 1) + (b ? 0 : 1)
        }
        XCTAssertEqual(missed, 0, "callers that waited out their limit, or did not see their own write")
    }

    func testAFollowerHearsThatTheReadFailedAndACallerDoesNotWaitMeanwhile() async throws {
        let catalogue = Catalogue()
        let reads = FreshReads { try await catalogue.read() }
        await catalogue.fail(true)
        do {
            try await reads.fresh()
            XCTFail("the failed read was not told")
        } catch {}
        let started = ContinuousClock.now
        await reads.fresh(within: .seconds(30))  // the catalogue out of reach: answers from what it holds
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
        await catalogue.fail(false)
        try await reads.fresh()
        let version = await catalogue.version, applied = await catalogue.applied
        XCTAssertEqual(applied, version)
    }
}
