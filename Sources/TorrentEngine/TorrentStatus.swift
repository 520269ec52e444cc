import Glibc

/// A snapshot of one torrent, as libtorrent reports it (no qBittorrent semantics here).
public struct TorrentStatus: Sendable, Equatable, Codable {
    /// libtorrent's `torrent_status::state_t`.
    public enum State: Int32, Sendable, Codable {
        case checkingFiles = 1, downloadingMetadata = 2, downloading = 3, finished = 4, seeding = 5
        case checkingResumeData = 7
        case unknown = 0
    }

    public var id: TorrentID
    public var name: String
    public var savePath: String
    public var infoHashV1: String
    public var infoHashV2: String
    public var error: String
    public var currentTracker: String
    public var comment: String
    public var creator: String
    public var contentPath: String
    public var rootPath: String
    public var state: State
    public var hasMetadata: Bool
    public var paused: Bool
    public var autoManaged: Bool
    public var sequential: Bool
    public var uploadMode: Bool
    public var superSeeding: Bool
    public var isFinished: Bool
    public var isSeeding: Bool
    public var isPrivate: Bool
    public var progress: Double
    public var distributedCopies: Double
    public var downloadRate: Int
    public var uploadRate: Int
    public var numSeeds: Int
    public var numPeers: Int
    public var numComplete: Int
    public var numIncomplete: Int
    public var numConnections: Int
    public var connectionsLimit: Int
    public var queuePosition: Int
    public var numPieces: Int
    public var piecesHave: Int
    public var pieceLength: Int
    public var trackersCount: Int
    public var nextAnnounce: Int
    public var totalSize: Int64
    public var totalWanted: Int64
    public var totalWantedDone: Int64
    public var totalDone: Int64
    public var allTimeDownload: Int64
    public var allTimeUpload: Int64
    public var sessionDownload: Int64
    public var sessionUpload: Int64
    public var totalFailed: Int64
    public var totalRedundant: Int64
    public var addedTime: Int64
    public var completedTime: Int64
    public var lastSeenComplete: Int64
    public var lastDownload: Int64
    public var lastUpload: Int64
    public var creationDate: Int64
    public var activeDuration: Int64
    public var seedingDuration: Int64
    public var finishedDuration: Int64
    /// Changed since its fast-resume data was last saved (libtorrent's `need_save_resume`).
    public var needSaveResume = false
    /// The last payload up or down, in seconds of the steady clock (CLOCK_MONOTONIC, libtorrent's); 0: never.
    public var lastActivitySteady: Int64 = 0
}

extension TorrentStatus {
    /// Seconds since it last moved payload, or since it finished when it has not since (qBittorrent's
    /// inactive seeding time): durations of the steady clock, so a step of the wall clock changes nothing.
    public var secondsInactive: Int64 {
        guard lastActivitySteady > 0 else { return finishedDuration }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return min(max(0, Int64(now.tv_sec) - lastActivitySteady), finishedDuration)
    }
}

/// One file of a torrent with metadata (pad files are left out; `index` is libtorrent's own).
public struct TorrentFile: Sendable, Equatable {
    /// What qBittorrent appends to an incomplete file's name on disk (its `incomplete_files_ext`).
    public static let incompleteSuffix = ".!qB"

    public var index: Int
    /// The file's own path, relative to the save path: what every reader wants. It leaves out the `.!qB` an
    /// incomplete file may carry on disk, as qBittorrent's user paths do.
    public var path: String
    /// The name on disk, relative to the save path (`path`, or `path` + `.!qB`).
    public var diskPath: String
    public var size: Int64
    public var offset: Int64
    public var downloaded: Int64
    public var priority: Int
    public var pieceRange: ClosedRange<Int>

    public var progress: Double { size == 0 ? 1 : Double(downloaded) / Double(size) }

    public init(index: Int, diskPath: String, size: Int64, offset: Int64, downloaded: Int64, priority: Int,
                pieceRange: ClosedRange<Int>) {
        self.index = index
        self.path = Self.withoutIncompleteSuffix(diskPath)
        self.diskPath = diskPath
        self.size = size
        self.offset = offset
        self.downloaded = downloaded
        self.priority = priority
        self.pieceRange = pieceRange
    }

    /// `name.!qB` → `name` (any case, as qBittorrent's `Path::removeExtension`).
    public static func withoutIncompleteSuffix(_ path: String) -> String {
        guard path.count > incompleteSuffix.count, path.lowercased().hasSuffix(incompleteSuffix.lowercased()) else { return path }
        return String(path.dropLast(incompleteSuffix.count))
    }
}

extension TorrentStatus {
    /// A torrent that has just been added: nothing known yet but its id, name and save path.
    public init(id: TorrentID, name: String, savePath: String) {
        self.init(
            id: id, name: name, savePath: savePath, infoHashV1: id, infoHashV2: "", error: "", currentTracker: "",
            comment: "", creator: "", contentPath: savePath, rootPath: "", state: .downloadingMetadata,
            hasMetadata: false, paused: false, autoManaged: false, sequential: false, uploadMode: false,
            superSeeding: false, isFinished: false, isSeeding: false, isPrivate: false, progress: 0,
            distributedCopies: 0, downloadRate: 0, uploadRate: 0, numSeeds: 0, numPeers: 0, numComplete: -1,
            numIncomplete: -1, numConnections: 0, connectionsLimit: -1, queuePosition: -1, numPieces: 0, piecesHave: 0,
            pieceLength: 0, trackersCount: 0, nextAnnounce: 0, totalSize: 0, totalWanted: 0, totalWantedDone: 0,
            totalDone: 0, allTimeDownload: 0, allTimeUpload: 0, sessionDownload: 0, sessionUpload: 0, totalFailed: 0,
            totalRedundant: 0, addedTime: 0, completedTime: 0, lastSeenComplete: 0, lastDownload: 0, lastUpload: 0,
            creationDate: 0, activeDuration: 0, seedingDuration: 0, finishedDuration: 0)
    }
}
