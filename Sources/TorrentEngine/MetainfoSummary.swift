import CLibtorrent

/// What a .torrent or magnet says about itself, read without adding it (5.2's torrent-info object). A magnet has
/// only its hashes, name, trackers and web seeds.
public struct MetainfoSummary: Sendable {
    public struct File: Sendable, Equatable {
        public var path: String
        public var length: Int64
    }

    public var infoHashV1 = ""
    public var infoHashV2 = ""
    public var name = ""
    public var createdBy = ""
    public var comment = ""
    /// Seconds since the epoch; nil when the torrent does not say.
    public var creationDate: Int64?
    public var hasMetadata = false
    public var isPrivate = false
    public var totalSize: Int64 = 0
    public var pieceLength = 0
    public var pieceCount = 0
    public var files: [File] = []
    public var trackers: [(url: String, tier: Int)] = []
    public var webSeeds: [String] = []
}

extension ParsedTorrent {
    /// What the parse found.
    public var summary: MetainfoSummary {
        var out = MetainfoSummary()
        withUnsafeMutablePointer(to: &out) { pointer in
            qbt_torrent_describe(handle, { context, s in
                guard let context, let s = s?.pointee else { return }
                let out = context.assumingMemoryBound(to: MetainfoSummary.self)
                func text(_ p: UnsafePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "" }
                out.pointee.infoHashV1 = text(s.info_hash_v1)
                out.pointee.infoHashV2 = text(s.info_hash_v2)
                out.pointee.name = text(s.name)
                out.pointee.createdBy = text(s.created_by)
                out.pointee.comment = text(s.comment)
                out.pointee.creationDate = s.creation_date > 0 ? s.creation_date : nil
                out.pointee.hasMetadata = s.has_metadata
                out.pointee.isPrivate = s.is_private
                out.pointee.totalSize = s.total_size
                out.pointee.pieceLength = Int(s.piece_length)
                out.pointee.pieceCount = Int(s.num_pieces)
                out.pointee.files = (0..<s.file_count).map { .init(path: text(s.file_paths[$0]), length: s.file_sizes[$0]) }
                out.pointee.trackers = (0..<s.tracker_count).map { (text(s.tracker_urls[$0]), Int(s.tracker_tiers[$0])) }
                out.pointee.webSeeds = (0..<s.web_seed_count).map { text(s.web_seeds[$0]) }
            }, UnsafeMutableRawPointer(pointer))
        }
        return out
    }
}
