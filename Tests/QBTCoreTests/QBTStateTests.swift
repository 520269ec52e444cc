import XCTest

@testable import QBTCore
@testable import TorrentEngine

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
        XCTAssertTrue(QBTFilter("whatever").matches(.error, stopped: false, uploadRate: 0))
    }

    func testSavePathsCannotEscapeTheDownloadRoot() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("paths-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: base) }
        let paths = try ServerPaths(dataDirectory: base)
        XCTAssertEqual(try paths.savePath(nil), paths.downloadRoot)
        XCTAssertEqual(try paths.savePath("tv/show"), paths.downloadRoot + "/tv/show")
        XCTAssertEqual(try paths.savePath(paths.downloadRoot + "/a/../b"), paths.downloadRoot + "/b")
        XCTAssertThrowsError(try paths.savePath("/etc"))
        XCTAssertThrowsError(try paths.savePath("../x"))
        XCTAssertThrowsError(try paths.savePath(paths.downloadRoot + "-evil"))
        // A symlink inside the root that points out of it does not open a way out.
        try FileManager.default.createSymbolicLink(atPath: paths.downloadRoot + "/link", withDestinationPath: "/tmp")
        XCTAssertThrowsError(try paths.savePath("link/inside"))
    }
}

final class PreferenceSettingsTests: XCTestCase {
    func testStoredPreferencesDriveTheEngine() {
        var base = EngineSettings()
        base.listenInterfaces = "0.0.0.0:6881"
        let s = PreferenceSettings.apply(
            ["dht": .bool(false), "lsd": .bool(false), "pex": .bool(false), "upnp": .bool(false), "dl_limit": .int(4096),
             "up_limit": .int(1024), "bittorrent_protocol": .int(1), "listen_port": .int(7000)], to: base)
        XCTAssertFalse(s.dht || s.lsd || s.pex || s.upnp || s.natpmp || s.utp)
        XCTAssertEqual(s.downloadRateLimit, 4096)
        XCTAssertEqual(s.uploadRateLimit, 1024)
        XCTAssertEqual(s.listenInterfaces, "0.0.0.0:7000,[::]:7000")
        XCTAssertEqual(PreferenceSettings.apply([:], to: base), base)
    }
}
