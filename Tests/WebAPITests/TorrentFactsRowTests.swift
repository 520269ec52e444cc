import Foundation
import QBTCore
import Store
import TorrentEngine
import XCTest

@testable import WebAPI

/// Every per-torrent fact the service keeps reaches the row clients read: a field added to `TorrentFacts` or to
/// `TorrentRecord` fails here until it has a change that shows in `torrents/info`'s row (or is listed, with the
/// reason, among the stored fields no row shows).
final class TorrentFactsRowTests: XCTestCase {
    /// One change per field; each must change the row.
    static let factChanges: [String: @Sendable (inout TorrentFacts) -> Void] = [
        "record": { $0.record.name = "renamed" },
        "tags": { $0.tags = ["new"] },
        "trackers": { $0.trackers = ["http://127.0.0.1:1/announce"] },
        "webSeeds": { $0.webSeeds = ["http://127.0.0.1:1/seed"] },
        "announce": { $0.announce = [.trackerError] },
        "moving": { $0.moving = true },
        "diskHold": { $0.diskHold = "held by the free-space guard" },
        "fileFault": { $0.fileFault = FileFault(operation: .read, code: EIO, message: "file_read (/data/a) error: I/O error") },
        "halted": { $0.halted = true },
    ]

    static let recordChanges: [String: @Sendable (inout TorrentRecord) -> Void] = [
        "id": { $0.id = String(repeating: "b", count: 40) },
        "name": { $0.name = "renamed" },
        "savePath": { $0.savePath = "/elsewhere" },
        "category": { $0.category = "films" },
        "addedOn": { $0.addedOn += 60 },
        "completedOn": { $0.completedOn = 1_700_000_000 },
        "stopped": { $0.stopped.toggle() },
        "sequential": { $0.sequential.toggle() },
        "firstLastPiecePrio": { $0.firstLastPiecePrio.toggle() },
        "uploadLimit": { $0.uploadLimit = 1024 },
        "downloadLimit": { $0.downloadLimit = 1024 },
        "ratioLimit": { $0.ratioLimit = 2 },
        "seedingTimeLimit": { $0.seedingTimeLimit = 60 },
        "inactiveSeedingTimeLimit": { $0.inactiveSeedingTimeLimit = 60 },
        "autoTMM": { $0.autoTMM.toggle() },
        "forceStart": { $0.forceStart.toggle() },
        "downloadPath": { $0.downloadPath = "/incomplete" },
        "comment": { $0.comment = "a comment of its own" },
        "shareLimitAction": { $0.shareLimitAction = "Remove" },
        "shareLimitsMode": { $0.shareLimitsMode = "MatchAll" },
    ]

    /// Stored fields that no row shows, and why.
    static let notInRows: Set<String> = [
        "metainfo",  // the .torrent file: `torrents/export`; the row shows what the engine parsed from it
        "resumeData",  // libtorrent's fast-resume data
        "magnet",  // how a magnet was added; the row's magnet_uri is made from the hashes, trackers and web seeds
        "stopCondition",  // a condition still to come; qBittorrent's rows do not show it either
        "superSeeding",  // the row shows the engine's super-seeding (`TorrentStatus.superSeeding`), which follows it
    ]

    func row(_ facts: TorrentFacts) -> TorrentInfo {
        var status = TorrentStatus(id: facts.record.id, name: "t", savePath: "/data")
        status.hasMetadata = true
        let view = TorrentView(facts: facts, status: status, globalLimits: ShareLimits(), queueingEnabled: false)
        return TorrentInfo(view, identity: Identity(profile: .v5_3))
    }

    var facts: TorrentFacts {
        let record = TorrentRecord(id: String(repeating: "a", count: 40), name: "t", metainfo: nil, magnet: nil,
                                   savePath: "/data")
        return TorrentFacts(record: record, tags: [])
    }

    func testEveryFactReachesTheRow() {
        let labels = Set(Mirror(reflecting: facts).children.compactMap(\.label))
        XCTAssertEqual(labels, Set(Self.factChanges.keys), "a field of TorrentFacts without a change here")
        let before = row(facts)
        for (label, change) in Self.factChanges {
            var changed = facts
            change(&changed)
            XCTAssertNotEqual(row(changed), before, "TorrentFacts.\(label) does not reach the row")
        }
    }

    func testEveryRecordFieldReachesTheRowOrSaysWhyNot() {
        let labels = Set(Mirror(reflecting: facts.record).children.compactMap(\.label))
        XCTAssertEqual(labels, Set(Self.recordChanges.keys).union(Self.notInRows),
                       "a field of TorrentRecord neither changed here nor listed as shown in no row")
        let before = row(facts)
        for (label, change) in Self.recordChanges {
            var changed = facts
            change(&changed.record)
            XCTAssertNotEqual(row(changed), before, "TorrentRecord.\(label) does not reach the row")
        }
    }
}
