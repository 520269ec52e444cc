import Synchronization
import XCTest

@testable import HTTPKit

/// One client's calls beyond its lanes wait in the order they came; another client's calls do not wait behind them.
final class ClientLanesTests: XCTestCase {
    final class Log: Sendable {
        let events = Mutex<[String]>([])
        let running = Mutex((now: 0, most: 0, heavyNow: 0, heavyMost: 0))
        func note(_ s: String) { events.withLock { $0.append(s) } }
    }

    func testABurstWaitsInOrderWithinItsLanes() async throws {
        let lanes = ClientLanes()
        let log = Log()
        let gate = AsyncStream<Void>.makeStream()
        let total = 40
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<total {
                let heavy = i % 2 == 0
                group.addTask {
                    try await lanes.run("burst", heavy: heavy) {
                        log.running.withLock {
                            $0.now += 1; $0.most = max($0.most, $0.now)
                            if heavy { $0.heavyNow += 1; $0.heavyMost = max($0.heavyMost, $0.heavyNow) }
                        }
                        try await Task.sleep(for: .milliseconds(5))
                        log.running.withLock { $0.now -= 1; if heavy { $0.heavyNow -= 1 } }
                        log.note("burst")
                    }
                }
                // Queued one after another, so the order they came in is known.
                while lanes.waitingOrRunning("burst") < min(i + 1, total) { await Task.yield() }
            }
            // Another client's call runs at once, whatever the burst's queue.
            group.addTask {
                try await lanes.run("other", heavy: true) { log.note("other") }
                gate.continuation.finish()
            }
            try await group.waitForAll()
        }
        let events = log.events.withLock { $0 }
        XCTAssertEqual(events.count, total + 1)
        XCTAssertLessThan(events.firstIndex(of: "other")!, 10, "the other client waited behind the burst: \(events)")
        let most = log.running.withLock { $0 }
        // In order: a heavy call that does not fit holds back the light ones behind it.
        XCTAssertLessThanOrEqual(most.most, ClientLanes.lanes)
        XCTAssertGreaterThan(most.most, ClientLanes.heavyLanes)
        XCTAssertEqual(most.heavyMost, ClientLanes.heavyLanes)
        XCTAssertEqual(lanes.clients, 0, "a client with nothing running or waiting is forgotten")
    }

    func testAFailedCallFreesItsPlace() async {
        let lanes = ClientLanes()
        struct Failure: Error {}
        for _ in 0..<(ClientLanes.lanes * 3) {
            _ = try? await lanes.run("c", heavy: true) { throw Failure() }
        }
        XCTAssertEqual(lanes.clients, 0)
    }
}
