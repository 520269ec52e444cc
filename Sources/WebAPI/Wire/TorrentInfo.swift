import Foundation
import HTTPKit
import QBTCore
import TorrentEngine

/// The torrent object of `torrents/info` (and, without `hash`, of `sync/maindata`), keys and types as
/// qBittorrent 5.1.4's `serialize_torrent.cpp` emits them.
public struct TorrentInfo: Codable, Sendable, Equatable {
    public var hash: String
    public var infohash_v1: String
    public var infohash_v2: String
    public var name: String
    public var magnet_uri: String
    public var size: Int64
    public var progress: Double
    public var dlspeed: Int
    public var upspeed: Int
    public var priority: Int
    public var num_seeds: Int
    public var num_complete: Int
    public var num_leechs: Int
    public var num_incomplete: Int
    public var state: String
    public var eta: Int64
    public var seq_dl: Bool
    public var f_l_piece_prio: Bool
    public var category: String
    public var tags: String
    public var super_seeding: Bool
    public var force_start: Bool
    public var save_path: String
    public var download_path: String
    public var content_path: String
    public var root_path: String
    public var added_on: Int64
    public var completion_on: Int64
    public var tracker: String
    public var trackers_count: Int
    public var dl_limit: Int
    public var up_limit: Int
    public var downloaded: Int64
    public var uploaded: Int64
    public var downloaded_session: Int64
    public var uploaded_session: Int64
    public var amount_left: Int64
    public var completed: Int64
    public var max_ratio: Double
    public var max_seeding_time: Int
    public var max_inactive_seeding_time: Int
    public var ratio: Double
    public var ratio_limit: Double
    public var seeding_time_limit: Int
    public var inactive_seeding_time_limit: Int
    public var popularity: Double
    public var seen_complete: Int64
    public var last_activity: Int64
    public var auto_tmm: Bool
    public var time_active: Int64
    public var seeding_time: Int64
    public var availability: Double
    public var reannounce: Int
    public var comment: String
    public var `private`: Nullable<Bool>
    public var total_size: Int64
    public var has_metadata: Bool
    // 5.2
    public var created_by: String
    public var creation_date: Int64
    public var pieces_num: Int
    public var piece_size: Int
    public var pieces_have: Int
    public var total_wasted: Int64
    public var connections_count: Int
    public var connections_limit: Int
    public var share_limit_action: String
    public var share_limits_mode: String
    /// qbtd's own: why the free-space guard holds it, or the file error that put it in `error`; empty otherwise.
    public var qbtd_reason: String
    /// qbtd's own, in a cluster: the node that runs it.
    public var node: String
    // 5.2, `sync/maindata` only: how the torrent's announces went (qBittorrent's `addAnnounceStats`).
    public var has_tracker_warning: Bool
    public var has_tracker_error: Bool
    public var has_other_announce_error: Bool

    /// The object as JSON values (for the few places that need a dictionary; the hot paths use `Field`).
    /// `includeHash` makes `torrents/info`'s object (hash, no sync-only keys), otherwise `sync/maindata`'s.
    public func jsonObject(identity: Identity, includeHash: Bool = true) -> [String: JSONValue] {
        var o: [String: JSONValue] = [:]
        for field in Self.fields(for: identity) where includeHash ? !field.syncOnly : field.name != "hash" {
            o[field.name] = field.value(self)
        }
        return o
    }

    /// qBittorrent's "infinite" ETA (`MAX_ETA`).
    public static let maxETA: Int64 = 8_640_000

    public init(_ view: TorrentView, identity: Identity) {
        let s = view.status
        let r = view.record
        let amountLeft = max(0, s.totalWanted - s.totalWantedDone)
        hash = view.id
        infohash_v1 = s.infoHashV1
        infohash_v2 = s.infoHashV2
        name = view.name
        magnet_uri = view.magnetURI(withSize: identity.profile != .v4_6)  // 5.x adds xl=
        size = s.totalWanted
        progress = s.progress
        dlspeed = r.stopped ? 0 : s.downloadRate
        upspeed = r.stopped ? 0 : s.uploadRate
        // libtorrent's queue position + 1, queueing on or off; 0 for torrents outside the queue (seeds).
        priority = s.queuePosition >= 0 ? s.queuePosition + 1 : 0
        num_seeds = s.numSeeds
        num_complete = max(s.numComplete, 0)
        num_leechs = max(0, s.numPeers - s.numSeeds)
        num_incomplete = max(s.numIncomplete, 0)
        state = identity.stateName(view.state)
        eta = view.state.isDownloading && s.downloadRate > 0 ? min(Self.maxETA, amountLeft / Int64(s.downloadRate)) : Self.maxETA
        seq_dl = r.sequential  // the acknowledged setting: a state update older than the toggle must not undo it
        f_l_piece_prio = r.firstLastPiecePrio
        category = r.category ?? ""
        tags = view.tags.joined(separator: ", ")
        super_seeding = s.superSeeding
        force_start = r.forceStart
        save_path = r.savePath
        download_path = r.downloadPath ?? ""
        content_path = s.hasMetadata ? s.contentPath : ""
        root_path = s.rootPath
        added_on = r.addedOn
        // Never completed: 4.x sends an invalid QDateTime's seconds (0), 5.x sends -1.
        completion_on = r.completedOn ?? (s.completedTime > 0 ? s.completedTime : identity.profile == .v4_6 ? 0 : -1)
        tracker = s.currentTracker
        trackers_count = view.trackers.count
        dl_limit = max(0, r.downloadLimit)  // 0 = unlimited here; properties says -1 (as qBittorrent does)
        up_limit = max(0, r.uploadLimit)
        downloaded = s.allTimeDownload
        uploaded = s.allTimeUpload
        downloaded_session = s.sessionDownload
        uploaded_session = s.sessionUpload
        amount_left = amountLeft
        completed = s.totalWantedDone
        max_ratio = view.maxRatio
        max_seeding_time = view.maxSeedingTime
        max_inactive_seeding_time = view.maxInactiveSeedingTime
        ratio = TorrentFigures.ratio(s)
        ratio_limit = r.ratioLimit
        seeding_time_limit = r.seedingTimeLimit
        inactive_seeding_time_limit = r.inactiveSeedingTimeLimit
        // qBittorrent: the ratio per month of activity.
        let activeMonths = Double(s.activeDuration) / (30 * 86400)
        popularity = activeMonths > 0 && ratio >= 0 ? ratio / activeMonths : 0
        seen_complete = s.lastSeenComplete
        let lastActive = max(s.lastDownload, s.lastUpload)
        last_activity = lastActive > 0 ? lastActive : r.addedOn  // never active: the time it was added
        auto_tmm = r.autoTMM
        time_active = s.activeDuration
        seeding_time = s.finishedDuration
        availability = s.distributedCopies
        reannounce = s.nextAnnounce
        comment = r.comment ?? s.comment
        `private` = Nullable(s.hasMetadata ? s.isPrivate : nil)
        total_size = s.hasMetadata ? s.totalSize : -1
        has_metadata = s.hasMetadata
        created_by = s.creator
        creation_date = s.creationDate > 0 ? s.creationDate : -1
        pieces_num = s.hasMetadata ? s.numPieces : 0
        piece_size = s.hasMetadata ? s.pieceLength : 0
        pieces_have = s.piecesHave
        total_wasted = s.totalFailed + s.totalRedundant
        connections_count = s.numConnections
        connections_limit = s.connectionsLimit
        share_limit_action = r.shareLimitAction ?? "Default"
        share_limits_mode = r.shareLimitsMode ?? "Default"
        qbtd_reason = view.reason
        node = view.node ?? identity.node ?? ""
        has_tracker_warning = view.announce.contains(.warning)
        has_tracker_error = view.announce.contains(.trackerError)
        has_other_announce_error = view.announce.contains(.otherError)
    }
}

extension QBTState {
    var isDownloading: Bool { [.downloading, .forcedDL, .stalledDL, .metaDL, .forcedMetaDL].contains(self) }
}
