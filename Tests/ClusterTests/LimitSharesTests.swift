import Cluster
import XCTest

/// The global limits divided between nodes: the shares always add up to the whole, busy nodes split what idle ones
/// leave, and a node that starts gets its fair part at the next division.
final class LimitSharesTests: XCTestCase {
    let limit = 4 << 20

    func demand(_ node: String, _ rate: Int, running: Double) -> LimitShares.Demand {
        .init(node: node, rate: Int64(rate), running: running)
    }

    func assertWhole(_ shares: [String: Double], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(shares.values.reduce(0, +), 1, accuracy: 1e-9, file: file, line: line)
    }

    func testTwoBusyNodesSplitEvenly() {
        let shares = LimitShares.shares([demand("a", 3 << 20, running: 0.8), demand("b", 800 << 10, running: 0.2)], limit: limit)
        assertWhole(shares)
        XCTAssertEqual(shares["a"]!, 0.5, accuracy: 1e-9)
        XCTAssertEqual(shares["b"]!, 0.5, accuracy: 1e-9)
    }

    func testAnIdleNodeKeepsAFloorAndTheBusyOneTakesTheRest() {
        let shares = LimitShares.shares([demand("a", 2 << 20, running: 0.5), demand("b", 0, running: 0.5)], limit: limit)
        assertWhole(shares)
        XCTAssertEqual(shares["b"]!, 0.025, accuracy: 1e-9)
        XCTAssertEqual(shares["a"]!, 0.975, accuracy: 1e-9)
    }

    func testANodeUsingLessThanItsShareGetsWhatItUsesWithRoom() {
        // b uses 1 MiB/s of its 2 MiB/s: it keeps 1.5 MiB/s and a floor; a, busy, takes the rest.
        let shares = LimitShares.shares([demand("a", 2 << 20, running: 0.5), demand("b", 1 << 20, running: 0.5)], limit: limit)
        assertWhole(shares)
        XCTAssertEqual(shares["b"]!, 1.5 / 4 + 0.025, accuracy: 1e-9)
        XCTAssertEqual(shares["a"]!, 1 - (1.5 / 4 + 0.025), accuracy: 1e-9)
    }

    func testNobodyBusyLeavesTheRestSpreadEvenly() {
        let shares = LimitShares.shares([demand("a", 0, running: 0.5), demand("b", 0, running: 0.5), demand("c", 0, running: 0)],
                                        limit: limit)
        assertWhole(shares)
        for share in shares.values { XCTAssertEqual(share, 1.0 / 3, accuracy: 1e-9) }
    }

    func testUnlimitedOrAloneGivesEvenShares() {
        XCTAssertEqual(LimitShares.shares([demand("a", 9 << 20, running: 1)], limit: limit), ["a": 1])
        let unlimited = LimitShares.shares([demand("a", 9 << 20, running: 1), demand("b", 0, running: 1)], limit: 0)
        XCTAssertEqual(unlimited, ["a": 0.5, "b": 0.5])
        XCTAssertEqual(LimitShares.shares([], limit: limit), [:])
    }

    func testManyNodesAlwaysAddUpToTheWhole() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let nodes = (0..<Int.random(in: 2...12, using: &generator)).map {
                demand("n\($0)", Int.random(in: 0...(8 << 20), using: &generator), running: Double.random(in: 0...1, using: &generator))
            }
            let shares = LimitShares.shares(nodes, limit: limit)
            assertWhole(shares)
            XCTAssertEqual(shares.count, nodes.count)
            XCTAssertTrue(shares.values.allSatisfy { $0 > 0 && $0 <= 1 })
        }
    }
}
