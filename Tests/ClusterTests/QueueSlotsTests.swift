import Cluster
import XCTest

/// The queue's active slots divided between nodes: whole numbers adding up to the limit, small wants met in full.
final class QueueSlotsTests: XCTestCase {
    func testEvenWantsSplitTheSlots() {
        let slots = QueueSlots.divide(5, wants: ["a": 10, "b": 10])
        XCTAssertEqual(slots.values.reduce(0, +), 5)
        XCTAssertEqual(Set(slots.values), [2, 3])
    }

    func testASmallWantIsMetAndTheRestGoesToTheBusyNode() {
        XCTAssertEqual(QueueSlots.divide(5, wants: ["a": 1, "b": 10]), ["a": 1, "b": 4])
        XCTAssertEqual(QueueSlots.divide(4, wants: ["a": 2, "b": 2]), ["a": 2, "b": 2])
    }

    func testSlotsNobodyWantsGoRoundInNameOrder() {
        XCTAssertEqual(QueueSlots.divide(5, wants: ["b": 0, "a": 0]), ["a": 3, "b": 2])
        XCTAssertEqual(QueueSlots.divide(0, wants: ["a": 3, "b": 1]), ["a": 0, "b": 0])
    }

    func testUnlimitedStaysUnlimitedEverywhere() {
        XCTAssertEqual(QueueSlots.divide(-1, wants: ["a": 3, "b": 0]), ["a": -1, "b": -1])
    }

    func testAlwaysAddsUpToTheLimit() {
        for _ in 0..<200 {
            let wants = Dictionary(uniqueKeysWithValues: (0..<Int.random(in: 1...9)).map { ("n\($0)", Int.random(in: 0...20)) })
            let limit = Int.random(in: 0...40)
            let slots = QueueSlots.divide(limit, wants: wants)
            XCTAssertEqual(slots.values.reduce(0, +), limit)
            XCTAssertEqual(Set(slots.keys), Set(wants.keys))
            // A node short of its want means no slot was spare, and nobody has more than one slot over it.
            for (node, want) in wants where slots[node]! < want {
                XCTAssertTrue(wants.allSatisfy { slots[$0.key]! <= $0.value }, "\(wants) → \(slots)")
                XCTAssertLessThanOrEqual(slots.values.max()!, slots[node]! + 1, "\(wants) → \(slots)")
            }
        }
    }
}
