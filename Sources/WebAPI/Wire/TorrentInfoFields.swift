import QBTCore

extension TorrentInfo {
    /// One key of the torrent object: its name, whether 5.0 added it, and its value. The table is sorted by name,
    /// as Qt's QJsonObject writes keys, so encoders walk it in order without building a dictionary per torrent.
    public struct Field: Sendable {
        public let name: String
        public let v5: Bool
        public let value: @Sendable (TorrentInfo) -> JSONValue

        init(_ name: String, v5: Bool, _ value: @escaping @Sendable (TorrentInfo) -> JSONValue) {
            self.name = name
            self.v5 = v5
            self.value = value
        }
    }

    /// Every key, sorted.
    public static let allFields: [Field] = [
        Field("added_on", v5: false) { .int(Int64($0.added_on)) },
        Field("amount_left", v5: false) { .int(Int64($0.amount_left)) },
        Field("auto_tmm", v5: false) { .bool($0.auto_tmm) },
        Field("availability", v5: false) { .double($0.availability) },
        Field("category", v5: false) { .string($0.category) },
        Field("comment", v5: true) { .string($0.comment) },
        Field("completed", v5: false) { .int(Int64($0.completed)) },
        Field("completion_on", v5: false) { .int(Int64($0.completion_on)) },
        Field("content_path", v5: false) { .string($0.content_path) },
        Field("dl_limit", v5: false) { .int(Int64($0.dl_limit)) },
        Field("dlspeed", v5: false) { .int(Int64($0.dlspeed)) },
        Field("download_path", v5: false) { .string($0.download_path) },
        Field("downloaded", v5: false) { .int(Int64($0.downloaded)) },
        Field("downloaded_session", v5: false) { .int(Int64($0.downloaded_session)) },
        Field("eta", v5: false) { .int(Int64($0.eta)) },
        Field("f_l_piece_prio", v5: false) { .bool($0.f_l_piece_prio) },
        Field("force_start", v5: false) { .bool($0.force_start) },
        Field("has_metadata", v5: true) { .bool($0.has_metadata) },
        Field("hash", v5: false) { .string($0.hash) },
        Field("inactive_seeding_time_limit", v5: false) { .int(Int64($0.inactive_seeding_time_limit)) },
        Field("infohash_v1", v5: false) { .string($0.infohash_v1) },
        Field("infohash_v2", v5: false) { .string($0.infohash_v2) },
        Field("last_activity", v5: false) { .int(Int64($0.last_activity)) },
        Field("magnet_uri", v5: false) { .string($0.magnet_uri) },
        Field("max_inactive_seeding_time", v5: false) { .int(Int64($0.max_inactive_seeding_time)) },
        Field("max_ratio", v5: false) { .double($0.max_ratio) },
        Field("max_seeding_time", v5: false) { .int(Int64($0.max_seeding_time)) },
        Field("name", v5: false) { .string($0.name) },
        Field("num_complete", v5: false) { .int(Int64($0.num_complete)) },
        Field("num_incomplete", v5: false) { .int(Int64($0.num_incomplete)) },
        Field("num_leechs", v5: false) { .int(Int64($0.num_leechs)) },
        Field("num_seeds", v5: false) { .int(Int64($0.num_seeds)) },
        Field("popularity", v5: true) { .double($0.popularity) },
        Field("priority", v5: false) { .int(Int64($0.priority)) },
        Field("private", v5: true) { $0.private.value.map { .bool($0) } ?? .null },
        Field("progress", v5: false) { .double($0.progress) },
        Field("ratio", v5: false) { .double($0.ratio) },
        Field("ratio_limit", v5: false) { .double($0.ratio_limit) },
        Field("reannounce", v5: true) { .int(Int64($0.reannounce)) },
        Field("root_path", v5: true) { .string($0.root_path) },
        Field("save_path", v5: false) { .string($0.save_path) },
        Field("seeding_time", v5: false) { .int(Int64($0.seeding_time)) },
        Field("seeding_time_limit", v5: false) { .int(Int64($0.seeding_time_limit)) },
        Field("seen_complete", v5: false) { .int(Int64($0.seen_complete)) },
        Field("seq_dl", v5: false) { .bool($0.seq_dl) },
        Field("size", v5: false) { .int(Int64($0.size)) },
        Field("state", v5: false) { .string($0.state) },
        Field("super_seeding", v5: false) { .bool($0.super_seeding) },
        Field("tags", v5: false) { .string($0.tags) },
        Field("time_active", v5: false) { .int(Int64($0.time_active)) },
        Field("total_size", v5: false) { .int(Int64($0.total_size)) },
        Field("tracker", v5: false) { .string($0.tracker) },
        Field("trackers_count", v5: false) { .int(Int64($0.trackers_count)) },
        Field("up_limit", v5: false) { .int(Int64($0.up_limit)) },
        Field("uploaded", v5: false) { .int(Int64($0.uploaded)) },
        Field("uploaded_session", v5: false) { .int(Int64($0.uploaded_session)) },
        Field("upspeed", v5: false) { .int(Int64($0.upspeed)) },
    ]

    static let fields5 = allFields
    static let fields4 = allFields.filter { !$0.v5 }

    /// The keys a profile sends (4.6 leaves out the fields 5.0 added), sorted.
    public static func fields(for identity: Identity) -> [Field] { identity.hasV5TorrentFields ? fields5 : fields4 }

    /// Field lookup by name, for `sort`.
    static let fieldsByName: [String: Field] = Dictionary(uniqueKeysWithValues: allFields.map { ($0.name, $0) })
}
