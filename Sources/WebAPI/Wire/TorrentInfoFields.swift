import HTTPKit
import QBTCore

extension TorrentInfo {
    /// Which qBittorrent release added a key.
    public enum Since: Int, Sendable, Comparable {
        case always, v5_0, v5_2, v5_3

        public static func < (a: Since, b: Since) -> Bool { a.rawValue < b.rawValue }

        init(_ profile: Identity.Profile) {
            self = switch profile {
            case .v4_6: .always
            case .v5_1: .v5_0
            case .v5_2: .v5_2
            case .v5_3: .v5_3
            }
        }
    }

    /// One key of the torrent object: its name, the release that added it, whether only `sync/maindata` sends it
    /// (5.2's announce flags), and its value. The table is sorted by name, as Qt's QJsonObject writes keys, so
    /// encoders walk it in order without building a dictionary per torrent.
    public struct Field: Sendable {
        public let name: String
        public let since: Since
        public let syncOnly: Bool
        /// Sent only by a cluster's nodes (qbtd's `node`).
        public let clusterOnly: Bool
        public let value: @Sendable (TorrentInfo) -> JSONValue

        init(_ name: String, since: Since = .always, syncOnly: Bool = false, clusterOnly: Bool = false,
             _ value: @escaping @Sendable (TorrentInfo) -> JSONValue) {
            self.name = name
            self.since = since
            self.syncOnly = syncOnly
            self.clusterOnly = clusterOnly
            self.value = value
        }
    }

    /// Every key, sorted.
    public static let allFields: [Field] = [
        Field("added_on") { .int(Int64($0.added_on)) },
        Field("amount_left") { .int(Int64($0.amount_left)) },
        Field("auto_tmm") { .bool($0.auto_tmm) },
        Field("availability") { .double($0.availability) },
        Field("category") { .string($0.category) },
        Field("comment", since: .v5_0) { .string($0.comment) },
        Field("completed") { .int(Int64($0.completed)) },
        Field("completion_on") { .int(Int64($0.completion_on)) },
        Field("connections_count", since: .v5_2) { .int(Int64($0.connections_count)) },
        Field("connections_limit", since: .v5_2) { .int(Int64($0.connections_limit)) },
        Field("content_path") { .string($0.content_path) },
        Field("created_by", since: .v5_2) { .string($0.created_by) },
        Field("creation_date", since: .v5_2) { .int($0.creation_date) },
        Field("dl_limit") { .int(Int64($0.dl_limit)) },
        Field("dlspeed") { .int(Int64($0.dlspeed)) },
        Field("download_path") { .string($0.download_path) },
        Field("downloaded") { .int(Int64($0.downloaded)) },
        Field("downloaded_session") { .int(Int64($0.downloaded_session)) },
        Field("eta") { .int(Int64($0.eta)) },
        Field("f_l_piece_prio") { .bool($0.f_l_piece_prio) },
        Field("force_start") { .bool($0.force_start) },
        Field("has_metadata", since: .v5_0) { .bool($0.has_metadata) },
        Field("has_other_announce_error", since: .v5_2, syncOnly: true) { .bool($0.has_other_announce_error) },
        Field("has_tracker_error", since: .v5_2, syncOnly: true) { .bool($0.has_tracker_error) },
        Field("has_tracker_warning", since: .v5_2, syncOnly: true) { .bool($0.has_tracker_warning) },
        Field("hash") { .string($0.hash) },
        Field("inactive_seeding_time_limit") { .int(Int64($0.inactive_seeding_time_limit)) },
        Field("infohash_v1") { .string($0.infohash_v1) },
        Field("infohash_v2") { .string($0.infohash_v2) },
        Field("last_activity") { .int(Int64($0.last_activity)) },
        Field("magnet_uri") { .string($0.magnet_uri) },
        Field("max_inactive_seeding_time") { .int(Int64($0.max_inactive_seeding_time)) },
        Field("max_ratio") { .double($0.max_ratio) },
        Field("max_seeding_time") { .int(Int64($0.max_seeding_time)) },
        Field("name") { .string($0.name) },
        // qbtd's own, from a cluster's nodes only: the node that runs the torrent.
        Field("node", clusterOnly: true) { .string($0.node) },
        Field("num_complete") { .int(Int64($0.num_complete)) },
        Field("num_incomplete") { .int(Int64($0.num_incomplete)) },
        Field("num_leechs") { .int(Int64($0.num_leechs)) },
        Field("num_seeds") { .int(Int64($0.num_seeds)) },
        Field("piece_size", since: .v5_2) { .int(Int64($0.piece_size)) },
        Field("pieces_have", since: .v5_2) { .int(Int64($0.pieces_have)) },
        Field("pieces_num", since: .v5_2) { .int(Int64($0.pieces_num)) },
        Field("popularity", since: .v5_0) { .double($0.popularity) },
        Field("priority") { .int(Int64($0.priority)) },
        Field("private", since: .v5_0) { $0.private.value.map { .bool($0) } ?? .null },
        Field("progress") { .double($0.progress) },
        // qbtd's own, in every profile (clients ignore keys they do not know): why a torrent is held or in error.
        Field("qbtd_reason") { .string($0.qbtd_reason) },
        Field("ratio") { .double($0.ratio) },
        Field("ratio_limit") { .double($0.ratio_limit) },
        Field("reannounce", since: .v5_0) { .int(Int64($0.reannounce)) },
        Field("root_path", since: .v5_0) { .string($0.root_path) },
        Field("save_path") { .string($0.save_path) },
        Field("seeding_time") { .int(Int64($0.seeding_time)) },
        Field("seeding_time_limit") { .int(Int64($0.seeding_time_limit)) },
        Field("seen_complete") { .int(Int64($0.seen_complete)) },
        Field("seq_dl") { .bool($0.seq_dl) },
        Field("share_limit_action", since: .v5_2) { .string($0.share_limit_action) },
        Field("share_limits_mode", since: .v5_3) { .string($0.share_limits_mode) },
        Field("size") { .int(Int64($0.size)) },
        Field("state") { .string($0.state) },
        Field("super_seeding") { .bool($0.super_seeding) },
        Field("tags") { .string($0.tags) },
        Field("time_active") { .int(Int64($0.time_active)) },
        Field("total_size") { .int(Int64($0.total_size)) },
        Field("total_wasted", since: .v5_2) { .int($0.total_wasted) },
        Field("tracker") { .string($0.tracker) },
        Field("trackers_count") { .int(Int64($0.trackers_count)) },
        Field("up_limit") { .int(Int64($0.up_limit)) },
        Field("uploaded") { .int(Int64($0.uploaded)) },
        Field("uploaded_session") { .int(Int64($0.uploaded_session)) },
        Field("upspeed") { .int(Int64($0.upspeed)) },
    ]

    static let fieldsByProfile: [Identity.Profile: [Field]] = Dictionary(uniqueKeysWithValues: Identity.Profile.allCases.map {
        profile in (profile, allFields.filter { $0.since <= Since(profile) && !$0.clusterOnly })
    })
    static let clusterFieldsByProfile: [Identity.Profile: [Field]] = Dictionary(uniqueKeysWithValues: Identity.Profile.allCases.map {
        profile in (profile, allFields.filter { $0.since <= Since(profile) })
    })

    /// The keys a profile sends (each release's own, and a cluster node's `node`), sorted; `sync/maindata`'s only ones
    /// included.
    public static func fields(for identity: Identity) -> [Field] {
        (identity.node == nil ? fieldsByProfile : clusterFieldsByProfile)[identity.profile]!
    }

    /// Field lookup by name, for `sort`.
    static let fieldsByName: [String: Field] = Dictionary(uniqueKeysWithValues: allFields.map { ($0.name, $0) })
}
