import SystemKit
import XCTest

@testable import QBTCore
@testable import TorrentEngine
import Store

final class QBTStateTests: XCTestCase {
    func status(_ state: TorrentStatus.State, metadata: Bool = true, finished: Bool = false, down: Int = 0, up: Int = 0,
                error: String = "") -> TorrentStatus {
        TorrentStatus(
            id: "x", name: "", savePath: "", infoHashV1: "", infoHashV2: "", error: error, currentTracker: "", comment: "",
            creator: "", contentPath: "", rootPath: "", state: state, hasMetadata: metadata, paused: false,
            autoManaged: false, sequential: false, uploadMode: false, superSeeding: false, isFinished: finished,
            isSeeding: finished, isPrivate: false, progress: 0, distributedCopies: 0, downloadRate: down, uploadRate: up,
            numSeeds: 0, numPeers: 0, numComplete: 0, numIncomplete: 0, numConnections: 0, connectionsLimit: 0,
            queuePosition: -1, numPieces: 0, piecesHave: 0, pieceLength: 0, trackersCount: 0, nextAnnounce: 0,
            totalSize: 0, totalWanted: 0, totalWantedDone: 0, totalDone: 0, allTimeDownload: 0, allTimeUpload: 0,
            sessionDownload: 0, sessionUpload: 0, totalFailed: 0, totalRedundant: 0, addedTime: 0, completedTime: 0,
            lastSeenComplete: 0, lastDownload: 0, lastUpload: 0, creationDate: 0, activeDuration: 0, seedingDuration: 0,
            finishedDuration: 0)
    }

    func testStateDerivationFollowsQBittorrentsOrder() {
        XCTAssertEqual(QBTState(status: status(.downloadingMetadata, metadata: false), stopped: false), .metaDL)
        XCTAssertEqual(QBTState(status: status(.downloadingMetadata, metadata: false), stopped: true), .stoppedDL)
        XCTAssertEqual(QBTState(status: status(.downloading, down: 10), stopped: false), .downloading)
        XCTAssertEqual(QBTState(status: status(.downloading), stopped: false), .stalledDL)
        XCTAssertEqual(QBTState(status: status(.seeding, finished: true, up: 5), stopped: false), .uploading)
        XCTAssertEqual(QBTState(status: status(.seeding, finished: true), stopped: false), .stalledUP)
        XCTAssertEqual(QBTState(status: status(.seeding, finished: true), stopped: true), .stoppedUP)
        XCTAssertEqual(QBTState(status: status(.checkingFiles), stopped: false), .checkingDL)
        XCTAssertEqual(QBTState(status: status(.checkingResumeData), stopped: false), .checkingResumeData)
        XCTAssertEqual(QBTState(status: status(.downloading, error: "disk full"), stopped: false), .error)
        XCTAssertEqual(QBTState.stoppedUP.legacyName, "pausedUP")
        XCTAssertEqual(QBTState.stalledDL.legacyName, "stalledDL")
    }

    func testFiltersAcceptBothDialectsAndUnknownMeansAll() {
        XCTAssertTrue(QBTFilter("paused").matches(.stoppedDL, stopped: true, uploadRate: 0))
        XCTAssertTrue(QBTFilter("stopped").matches(.stoppedUP, stopped: true, uploadRate: 0))
        XCTAssertTrue(QBTFilter("resumed").matches(.downloading, stopped: false, uploadRate: 0))
        XCTAssertFalse(QBTFilter("running").matches(.stoppedDL, stopped: true, uploadRate: 0))
        XCTAssertTrue(QBTFilter("completed").matches(.stoppedUP, stopped: true, uploadRate: 0))
        XCTAssertFalse(QBTFilter("seeding").matches(.stoppedUP, stopped: true, uploadRate: 0))
        XCTAssertTrue(QBTFilter("active").matches(.stalledDL, stopped: false, uploadRate: 3))
        // 5.2: active is moving data, whatever the state (a downloading torrent without peers is inactive).
        XCTAssertFalse(QBTFilter("active").matches(.downloading, stopped: false, uploadRate: 0, downloadRate: 0, transferring: true))
        XCTAssertTrue(QBTFilter("inactive").matches(.downloading, stopped: false, uploadRate: 0, downloadRate: 0, transferring: true))
        XCTAssertTrue(QBTFilter("active").matches(.stoppedUP, stopped: true, uploadRate: 0, downloadRate: 5, transferring: true))
        XCTAssertTrue(QBTFilter("whatever").matches(.error, stopped: false, uploadRate: 0))
    }

    func testSavePathsAreAnywhereUnlessConfined() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("paths-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: base) }
        // By default, as in qBittorrent: any absolute path; relative ones under the base (the default save path).
        let open = try ServerPaths(dataDirectory: base)
        XCTAssertNil(open.confinement)
        XCTAssertEqual(try open.savePath(nil), open.downloadRoot)
        XCTAssertEqual(try open.savePath("/srv/media/tv"), "/srv/media/tv")
        XCTAssertEqual(try open.savePath("tv", relativeTo: "/srv/media"), "/srv/media/tv")
        XCTAssertEqual(try open.savePath(open.downloadRoot + "/a/../b"), open.downloadRoot + "/b")
        XCTAssertThrowsError(try open.savePath("a\0b"))

        // With --allowed-paths: only those folders (and qbtd's own), after `..` and symlinks.
        let extra = base + "/media"
        let paths = try ServerPaths(dataDirectory: base, allowedPaths: [extra])
        XCTAssertEqual(paths.confinement, [paths.downloadRoot, paths.uploadsDirectory, extra])
        XCTAssertEqual(try paths.savePath("tv/show"), paths.downloadRoot + "/tv/show")
        XCTAssertEqual(try paths.savePath(extra + "/tv"), extra + "/tv")
        XCTAssertThrowsError(try paths.savePath("/etc")) { error in
            XCTAssertTrue("\(error)".contains(extra), "the message names the allowed folders: \(error)")
        }
        XCTAssertThrowsError(try paths.savePath("../x"))
        XCTAssertThrowsError(try paths.savePath(paths.downloadRoot + "-evil"))
        // A symlink inside the root that points out of it does not open a way out.
        try FileManager.default.createSymbolicLink(atPath: paths.downloadRoot + "/link", withDestinationPath: "/tmp")
        XCTAssertThrowsError(try paths.savePath("link/inside"))
    }
}

final class ServerSettingsTests: XCTestCase {
    func makeSettings(_ overrides: EngineOverrides = EngineOverrides()) async throws -> ServerSettings {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
        let paths = try ServerPaths(dataDirectory: dir)
        return try await ServerSettings(store: try SQLiteStore(path: paths.databasePath), paths: paths, overrides: overrides)
    }

    func testPreferencesDriveTheEngineAndPersist() async throws {
        let settings = try await makeSettings()
        let changed = try await settings.update([
            "dht": .bool(false), "lsd": .bool(false), "pex": .bool(false), "upnp": .bool(false), "dl_limit": .int(4096),
            "up_limit": .double(1024), "bittorrent_protocol": .int(1), "listen_port": .int(7000),
            "queueing_enabled": .bool(true), "max_active_downloads": .int(2), "encryption": .int(1),
            "unknown_key": .int(1), "max_connec": .string("wrong type"), "save_path": .string("/etc"),
        ])
        XCTAssertFalse(changed.contains("unknown_key") || changed.contains("max_connec"))
        XCTAssertTrue(changed.contains("save_path"), "any absolute path, as in qBittorrent, unless --allowed-paths confines them")
        let s = settings.engineSettings()
        XCTAssertFalse(s.dht || s.lsd || s.pex || s.upnp || s.natpmp || s.utp)
        XCTAssertEqual(s.downloadRateLimit, 4096)
        XCTAssertEqual(s.uploadRateLimit, 1024)
        XCTAssertEqual(s.listenInterfaces, "0.0.0.0:7000,[::]:7000")
        XCTAssertEqual(s.activeDownloads, 2)
        XCTAssertEqual(s.encryption, 1)
        try await settings.setAlternativeSpeed(true)
        let alt = settings.engineSettings()
        XCTAssertEqual(alt.downloadRateLimit, 10240)
    }

    func testOverridesWin() async throws {
        let settings = try await makeSettings(EngineOverrides(peerListen: "127.0.0.1:0", discovery: false, utp: false))
        try await settings.update(["dht": .bool(true), "bittorrent_protocol": .int(2)])
        let s = settings.engineSettings()
        XCTAssertFalse(s.dht || s.utp)
        XCTAssertTrue(s.tcp)
        XCTAssertEqual(s.listenInterfaces, "127.0.0.1:0")
    }

    func testScheduleWindowsCrossMidnight() async throws {
        let settings = try await makeSettings()
        try await settings.update(["scheduler_enabled": .bool(true), "schedule_from_hour": .int(22), "schedule_to_hour": .int(6)])
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let late = calendar.date(from: DateComponents(year: 2026, month: 11, day: 22, hour: 23))!
        let noon = calendar.date(from: DateComponents(year: 2026, month: 11, day: 22, hour: 12))!
        let lateWants = settings.scheduleWantsAlternative(at: late, calendar: calendar)
        let noonWants = settings.scheduleWantsAlternative(at: noon, calendar: calendar)
        XCTAssertEqual(lateWants, true)
        XCTAssertEqual(noonWants, false)
    }
}
