import EngineTestSupport
import Foundation
import Store
import XCTest

@testable import QBTCore
@testable import TorrentEngine

/// What the service keeps from engine events and works out from categories, over the in-memory engine.
final class PlacementAndAnnounceTests: XCTestCase {
    var dir: URL!

    override func setUp() async throws { dir = try temporaryFolder("qbtd-placement") }

    override func tearDown() async throws { try? FileManager.default.removeItem(at: dir) }

    /// Waits (bounded) for the service to have handled the events posted so far.
    func settle(_ service: TorrentService, until condition: @Sendable () async -> Bool) async throws {
        for _ in 0..<200 where !(await condition()) { try await Task.sleep(for: .milliseconds(10)) }
    }

    func testAnnounceFlagsFollowEachTrackersLastAnswer() async throws {
        let server = try await MemoryServer.start(in: dir)
        let (service, engine) = (server.service, server.engine)
        let torrent = MemoryServer.magnet(1)
        _ = await service.add([torrent], options: AddOptions())
        let (a, b) = ("http://a.test/announce", "http://b.test/announce")
        try await service.sources.addTrackers(torrent.id, [(a, 0), (b, 1)])
        await engine.post(.trackerStatus(torrent.id, url: a, .trackerError, "Unregistered torrent"))
        await engine.post(.trackerStatus(torrent.id, url: b, .working, "slow down"))
        await engine.post(.trackerStatus(torrent.id, url: "http://unknown.test/", .notWorking, "refused"))
        try await settle(service) { await service.view(torrent.id)?.announce == [.trackerError, .warning] }
        var flags = await service.view(torrent.id)?.announce
        XCTAssertEqual(flags, [.trackerError, .warning], "a tracker the torrent does not have says nothing")
        XCTAssertTrue(service.log.messages(after: -1, kinds: [.warning]).contains { $0.message.contains("\"\(a)\"") && $0.message.contains("Unregistered") })

        try await service.sources.removeTrackers(torrent.id, urls: [a])
        flags = await service.view(torrent.id)?.announce
        XCTAssertEqual(flags, [.warning], "the error went with its tracker")
        await engine.post(.trackerStatus(torrent.id, url: b, .unreachable, ""))
        try await settle(service) { await service.view(torrent.id)?.announce == [.otherError] }
        flags = await service.view(torrent.id)?.announce
        XCTAssertEqual(flags, [.otherError])
        await service.remove([torrent.id], deleteFiles: false)
        let left = await service.torrents[torrent.id]
        XCTAssertNil(left, "nothing kept for a removed torrent")
    }

    func testSubcategoryPathsNestOnlyWithSubcategories() async throws {
        let server = try await MemoryServer.start(in: dir)
        let service = server.service
        let root = service.settings.defaultSavePath
        _ = try await service.settings.update(["temp_path_enabled": .bool(true), "temp_path": .string(root + "/temp")])
        try await service.labels.createCategory(Category(name: "P", savePath: "/elsewhere/p",
                                                  downloadPath: DownloadPathOption(enabled: true, path: "pdl")))
        try await service.labels.createCategory(Category(name: "P/C", savePath: ""))
        var save = await service.categorySavePath("P/C")
        var download = await service.categoryDownloadPath("P/C")
        XCTAssertEqual(save, root + "/P/C")
        XCTAssertEqual(download, root + "/temp/P/C", "flat: follows the global temp path in a folder of its own")

        _ = try await service.settings.update(["use_subcategories": .bool(true)])
        save = await service.categorySavePath("P/C")
        download = await service.categoryDownloadPath("P/C")
        XCTAssertEqual(save, "/elsewhere/p/C")
        XCTAssertEqual(download, root + "/temp/pdl/pdl", "qBittorrent's inherited option, path and all")
        try await service.labels.createCategory(Category(name: "X/Y/Z", savePath: "", downloadPath: DownloadPathOption(enabled: false)))
        let names = await service.labels.categories.map(\.name)
        XCTAssertEqual(names, ["P", "P/C", "X", "X/Y", "X/Y/Z"])
        download = await service.categoryDownloadPath("X/Y/Z")
        XCTAssertNil(download)
        try await service.labels.removeCategories(["X"])
        let left = await service.labels.categories.map(\.name)
        XCTAssertEqual(left, ["P", "P/C"])
        XCTAssertEqual(TorrentService.validPathName("a:b??c|d"), "a b c d")
    }
}
