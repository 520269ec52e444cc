import EngineTestSupport
import Foundation
import MemoryEngine
import Store
import XCTest

@testable import QBTCore
@testable import TorrentEngine

/// A cluster node's listing board: its own torrents merged with those other nodes published (`takeRemote`), each
/// board after the last with what changed named, so that the rows and rid diffs re-encode only that.
final class RemoteTorrentsTests: XCTestCase {
    var dir: URL!

    override func setUp() async throws { dir = try temporaryFolder("qbtd-remote") }

    override func tearDown() async throws { try? FileManager.default.removeItem(at: dir) }

    func remote(_ id: String, node: String, addedOn: Int64, rate: Int = 0) -> RemoteTorrent {
        let record = TorrentRecord(id: id, name: "r-\(id.prefix(4))", metainfo: nil, magnet: "magnet:?xt=urn:btih:\(id)",
                                   savePath: "/srv", addedOn: addedOn)
        var status = TorrentStatus(id: id, name: record.name, savePath: "/srv")
        status.downloadRate = rate
        return RemoteTorrent(facts: TorrentFacts(record: record, tags: []), status: status, node: node)
    }

    func testListingsMergeOtherNodesTorrentsAndSayWhatChanged() async throws {
        let service = try await MemoryServer.start(in: dir).service
        let own = MemoryServer.magnet(1).id
        _ = await service.add([MemoryServer.magnet(1)], options: AddOptions())
        let local = await service.freshListing()
        XCTAssertEqual(local.entries.count, 1, "no other node: this node's own board")

        let a = String(repeating: "a", count: 40), b = String(repeating: "b", count: 40)
        await service.takeRemote([a: remote(a, node: "n2", addedOn: 1), b: remote(b, node: "n2", addedOn: 2, rate: 100)])
        let merged = await service.freshListing()
        XCTAssertEqual(merged.entries.count, 3)
        XCTAssertGreaterThan(merged.generation, local.generation)
        XCTAssertEqual(merged.order, [a, b, own], "in the order they were added, whichever node runs them")
        XCTAssertEqual(merged.entries[a]?.view.node, "n2")
        XCTAssertNil(merged.entries[own]?.view.node)
        XCTAssertEqual(merged.downloadRate, local.downloadRate + 100)

        // Only b changed: the next board follows this one and names b alone; a is the same entry.
        await service.takeRemote([b: remote(b, node: "n2", addedOn: 2, rate: 200)])
        let next = await service.freshListing()
        XCTAssertEqual(next.previousGeneration, merged.generation)
        XCTAssertEqual(next.changed, [b])
        XCTAssertTrue(next.entries[a] === merged.entries[a])
        let same = await service.freshListing()
        XCTAssertEqual(same.generation, next.generation, "nothing changed: the same board")

        // Removed on its node: gone, and named as changed.
        let gone: [TorrentID: RemoteTorrent?] = [a: nil]  // a value of nil: removed
        await service.takeRemote(gone)
        let after = await service.freshListing()
        XCTAssertNil(after.entries[a])
        XCTAssertEqual(after.changed, [a])
        XCTAssertEqual(after.order, [b, own])

        // Its node down: in error, nothing moving, with the reason.
        await service.setNodesDown(["n2": "Node n2 is lapsed"])
        let down = await service.freshListing()
        XCTAssertEqual(down.entries[b]?.view.state, .error)
        XCTAssertEqual(down.entries[b]?.view.reason, "Node n2 is lapsed")
        XCTAssertEqual(down.entries[b]?.view.status.downloadRate, 0)
        await service.setNodesDown([:])
        let back = await service.freshListing()
        XCTAssertNotEqual(back.entries[b]?.view.state, .error)

        // Who runs what: this node's own and unknown hashes are answered here.
        let owners = await service.owners(of: [b, own, "unknown"])
        XCTAssertEqual(owners["n2"], [b])
        XCTAssertEqual(owners[nil], [own, "unknown"])
        let nodes = await service.remoteNodes()
        XCTAssertEqual(nodes, ["n2"])
    }

    /// Each board is made from the last and what changed: after any run of changes it is the board a whole merge makes
    /// (every torrent once, this node's own over a published copy, in the order added, the rates summed once).
    func testBoardsMadeFromTheLastAreTheWholeMerge() async throws {
        let service = try await MemoryServer.start(in: dir).service
        let own = MemoryServer.magnet(1).id
        _ = await service.add([MemoryServer.magnet(1)], options: AddOptions())
        var rng = SystemRandomNumberGenerator()
        var published: [TorrentID: RemoteTorrent] = [:]
        let ids = (0..<40).map { String(format: "%040x", $0 + 1) } + [own]  // own: also published, as while it moves
        for round in 0..<60 {
            var changes: [TorrentID: RemoteTorrent?] = [:]
            let before = published
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                let id = ids.randomElement(using: &rng)!
                if published[id] != nil, Bool.random(using: &rng) {
                    changes[id] = .some(nil)
                    published[id] = nil
                } else {
                    let t = remote(id, node: "n\(round % 3 + 2)", addedOn: Int64(id.hashValue & 0xff),
                                   rate: Int.random(in: 0...1000, using: &rng))
                    changes[id] = .some(t)
                    published[id] = t
                }
            }
            await service.takeRemote(changes)
            let local = await service.freshBoard()
            let board = await service.freshListing()
            let expected = Set(published.keys).union(local.entries.keys)
            XCTAssertEqual(Set(board.entries.keys), expected, "round \(round)")
            XCTAssertEqual(board.order.count, expected.count)
            let records = board.order.map { board.entries[$0]!.view.record }
            XCTAssertEqual(records.map(\.id), records.sorted { ($0.addedOn, $0.id) < ($1.addedOn, $1.id) }.map(\.id))
            XCTAssertNil(board.entries[own]?.view.node, "this node's own wins over a published copy")
            let others = published.filter { local.entries[$0.key] == nil }.values.reduce(0) { $0 + $1.status.downloadRate }
            XCTAssertEqual(board.downloadRate, local.downloadRate + others, "round \(round)")
            // (a torrent published and withdrawn in one go never was)
            let touched = Set(changes.keys).filter { before[$0] != nil || published[$0] != nil }.subtracting([own])
            if let changed = board.changed { XCTAssertTrue(touched.isSubset(of: changed), "round \(round)") }
        }
    }
}
