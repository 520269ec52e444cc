import XCTest

@testable import QBTCore
import TorrentEngine

/// Moves of several torrents in the queue, in qBittorrent's order (the orders below are qBittorrent 4.5.2's, as
/// Tests/e2e/test_queue_moves.py sees them).
final class QueueOrderTests: XCTestCase {
    /// libtorrent's moves on a queue of names.
    func moved(_ queue: [String], _ id: String, _ move: QueueMove) -> [String] {
        var q = queue
        guard let i = q.firstIndex(of: id) else { return q }
        q.remove(at: i)
        switch move {
        case .up: q.insert(id, at: max(0, i - 1))
        case .down: q.insert(id, at: min(q.count, i + 1))
        case .top: q.insert(id, at: 0)
        case .bottom: q.append(id)
        }
        return q
    }

    func testSeveralTorrentsMoveAsInQBittorrentWhateverOrderTheClientNamesThem() {
        var queue = ["A", "B", "C", "D"]
        let steps: [(QueueMove, [String], String)] = [
            (.up, ["C", "D"], "ACDB"), (.down, ["A", "C"], "DACB"), (.top, ["C", "B"], "CBDA"),
            (.bottom, ["C", "D"], "BACD"), (.up, ["D", "C"], "BCDA"), (.down, ["B", "C"], "DBCA"),
        ]
        for (move, named, after) in steps {
            let positions = Dictionary(uniqueKeysWithValues: queue.enumerated().map { ($1, $0) })
            for id in TorrentService.queueOrder(named, move, positions: positions) { queue = moved(queue, id, move) }
            XCTAssertEqual(queue.joined(), after, "\(move) \(named)")
        }
    }

    func testTorrentsOutsideTheQueueAndRepeatsAreLeftOut() {
        let order = TorrentService.queueOrder(["S", "B", "A", "B", "X"], .top, positions: ["A": 0, "B": 1, "S": -1])
        XCTAssertEqual(order, ["B", "A"])
    }
}
