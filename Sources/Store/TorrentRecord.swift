import Foundation
import GRDB

/// Everything needed to bring a torrent back after a restart or a crash.
public struct TorrentRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "torrents"

    public var id: String
    public var name: String
    /// The .torrent bytes, once known (a magnet gets them when its metadata arrives).
    public var metainfo: Data?
    public var magnet: String?
    public var savePath: String
    public var category: String?
    public var addedOn: Int64
    public var completedOn: Int64?
    public var stopped: Bool
    public var sequential: Bool
    public var firstLastPiecePrio: Bool
    /// Bytes per second, 0 = unlimited.
    public var uploadLimit: Int
    public var downloadLimit: Int
    /// -2 = use the global limit, -1 = no limit.
    public var ratioLimit: Double
    /// Minutes; -2 = global, -1 = none.
    public var seedingTimeLimit: Int
    public var inactiveSeedingTimeLimit: Int
    public var autoTMM: Bool
    public var forceStart: Bool
    public var superSeeding: Bool
    /// Where the data lives until it completes (qBittorrent's temp/download path); nil = the save path.
    public var downloadPath: String?
    /// qBittorrent's stop condition still to come: "MetadataReceived" or "FilesChecked"; nil: none.
    public var stopCondition: String?
    /// 5.2's `torrents/setComment`: the comment shown instead of the .torrent's; nil: the .torrent's.
    public var comment: String?
    /// 5.x's per-torrent share limit action ("Stop", "Remove", "RemoveWithContent", "EnableSuperSeeding"); nil: the
    /// global `max_ratio_act`.
    public var shareLimitAction: String?
    /// 5.3's per-torrent share limits mode ("MatchAny": any limit reached, "MatchAll": every limit set reached); nil:
    /// the global `share_limits_mode`.
    public var shareLimitsMode: String?
    public var resumeData: Data?

    enum CodingKeys: String, CodingKey {
        case id, name, metainfo, magnet, category, stopped, sequential
        case savePath = "save_path", addedOn = "added_on", completedOn = "completed_on"
        case firstLastPiecePrio = "first_last_piece_prio", uploadLimit = "upload_limit"
        case downloadLimit = "download_limit", ratioLimit = "ratio_limit", seedingTimeLimit = "seeding_time_limit"
        case inactiveSeedingTimeLimit = "inactive_seeding_time_limit", autoTMM = "auto_tmm"
        case resumeData = "resume_data", forceStart = "force_start", superSeeding = "super_seeding"
        case downloadPath = "download_path", stopCondition = "stop_condition", comment
        case shareLimitAction = "share_limit_action", shareLimitsMode = "share_limits_mode"
    }

    public init(
        id: String, name: String, metainfo: Data?, magnet: String?, savePath: String, category: String? = nil,
        addedOn: Int64 = Int64(Date().timeIntervalSince1970), stopped: Bool = false, sequential: Bool = false,
        firstLastPiecePrio: Bool = false, uploadLimit: Int = 0, downloadLimit: Int = 0, ratioLimit: Double = -2,
        seedingTimeLimit: Int = -2, inactiveSeedingTimeLimit: Int = -2, autoTMM: Bool = false
    ) {
        self.id = id
        self.name = name
        self.metainfo = metainfo
        self.magnet = magnet
        self.savePath = savePath
        self.category = category
        self.addedOn = addedOn
        self.completedOn = nil
        self.stopped = stopped
        self.sequential = sequential
        self.firstLastPiecePrio = firstLastPiecePrio
        self.uploadLimit = uploadLimit
        self.downloadLimit = downloadLimit
        self.ratioLimit = ratioLimit
        self.seedingTimeLimit = seedingTimeLimit
        self.inactiveSeedingTimeLimit = inactiveSeedingTimeLimit
        self.autoTMM = autoTMM
        self.forceStart = false
        self.superSeeding = false
        self.downloadPath = nil
        self.stopCondition = nil
        self.comment = nil
        self.shareLimitAction = nil
        self.shareLimitsMode = nil
        self.resumeData = nil
    }
}

/// A stored torrent with its tags.
public struct StoredTorrent: Sendable, Equatable {
    public var record: TorrentRecord
    public var tags: [String]
    /// Its place in the download queue at the last clean stop (`saveQueuePositions`); nil when not queued.
    public var queuePosition: Int?

    public init(record: TorrentRecord, tags: [String], queuePosition: Int? = nil) {
        self.record = record
        self.tags = tags
        self.queuePosition = queuePosition
    }
}
