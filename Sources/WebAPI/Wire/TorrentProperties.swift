import Foundation
import HTTPKit
import QBTCore
import TorrentEngine

/// `torrents/properties` (qBittorrent 5.1.4).
public struct TorrentProperties: Codable, Sendable, Equatable {
    public var infohash_v1: String
    public var infohash_v2: String
    public var name: String
    public var hash: String
    public var time_elapsed: Int64
    public var seeding_time: Int64
    public var eta: Int64
    public var nb_connections: Int
    public var nb_connections_limit: Int
    public var total_downloaded: Int64
    public var total_downloaded_session: Int64
    public var total_uploaded: Int64
    public var total_uploaded_session: Int64
    public var dl_speed: Int
    public var dl_speed_avg: Int64
    public var up_speed: Int
    public var up_speed_avg: Int64
    public var dl_limit: Int
    public var up_limit: Int
    public var total_wasted: Int64
    public var seeds: Int
    public var seeds_total: Int
    public var peers: Int
    public var peers_total: Int
    public var share_ratio: Double
    public var popularity: Double
    public var reannounce: Int
    public var total_size: Int64
    public var pieces_num: Int
    public var piece_size: Int
    public var pieces_have: Int
    public var created_by: String
    public var is_private: Bool
    public var `private`: Nullable<Bool>
    public var addition_date: Int64
    public var last_seen: Int64
    public var completion_date: Int64
    public var creation_date: Int64
    public var save_path: String
    public var download_path: String
    public var comment: String
    public var has_metadata: Bool
    public var progress: Double

    /// Fields qBittorrent 5.0 added; a 4.6 profile leaves them out.
    static let v5Fields = ["private", "has_metadata", "popularity", "progress"]

    var jsonObject: [String: JSONValue] {
        (try? JSONDecoder().decode([String: JSONValue].self, from: WireJSON.encoder.encode(self))) ?? [:]
    }

    public init(_ view: TorrentView, info: TorrentInfo, identity: Identity) {
        let s = view.status
        infohash_v1 = s.infoHashV1
        infohash_v2 = s.infoHashV2
        name = view.name
        hash = view.id
        time_elapsed = s.activeDuration
        seeding_time = s.finishedDuration
        eta = info.eta
        nb_connections = s.numConnections
        nb_connections_limit = s.connectionsLimit
        total_downloaded = s.allTimeDownload
        total_downloaded_session = s.sessionDownload
        total_uploaded = s.allTimeUpload
        total_uploaded_session = s.sessionUpload
        dl_speed = s.downloadRate
        let downloading = s.activeDuration - s.finishedDuration
        up_speed = s.uploadRate
        if identity.profile == .v4_6 {  // 4.x divides by -1 when the duration is 0
            dl_speed_avg = s.allTimeDownload / (downloading == 0 ? -1 : downloading)
            up_speed_avg = s.allTimeUpload / (s.activeDuration == 0 ? -1 : s.activeDuration)
        } else {
            dl_speed_avg = downloading > 0 ? s.allTimeDownload / downloading : -1
            up_speed_avg = s.activeDuration > 0 ? s.allTimeUpload / s.activeDuration : -1
        }
        dl_limit = info.dl_limit > 0 ? info.dl_limit : -1
        up_limit = info.up_limit > 0 ? info.up_limit : -1
        total_wasted = s.totalFailed + s.totalRedundant
        seeds = s.numSeeds
        seeds_total = info.num_complete
        peers = info.num_leechs
        peers_total = info.num_incomplete
        share_ratio = info.ratio
        popularity = info.ratio < 0 ? -1 : info.popularity
        reannounce = s.nextAnnounce
        // Without metadata libtorrent knows no pieces: qBittorrent's TorrentInfo answers -1.
        total_size = s.hasMetadata ? s.totalSize : -1
        pieces_num = s.hasMetadata ? s.numPieces : -1
        piece_size = s.hasMetadata ? s.pieceLength : -1
        pieces_have = s.piecesHave
        created_by = s.creator
        is_private = s.isPrivate
        `private` = info.private
        addition_date = info.added_on
        last_seen = s.lastSeenComplete > 0 ? s.lastSeenComplete : -1
        completion_date = info.completion_on > 0 ? info.completion_on : -1
        creation_date = s.creationDate > 0 ? s.creationDate : -1
        save_path = info.save_path
        download_path = info.download_path
        comment = info.comment
        has_metadata = s.hasMetadata
        progress = s.progress
    }
}

/// One entry of `torrents/files`.
public struct FileInfo: Codable, Sendable, Equatable {
    public var index: Int
    public var name: String
    public var size: Int64
    public var progress: Double
    public var priority: Int
    public var is_seed: Bool?
    public var piece_range: [Int]
    public var availability: Double
}

extension FileInfo {
    /// A list written straight to JSON, keys in Qt's (sorted) order: no encoder and no dictionary per file (a
    /// season pack has thousands).
    static func json(_ files: [FileInfo]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        out.reserveCapacity(files.count * 160 + 2)
        for (i, f) in files.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"availability":"#.utf8)
            JSONValue.double(f.availability).write(into: &out)
            out.append(contentsOf: #","index":"#.utf8)
            JSONValue.int(Int64(f.index)).write(into: &out)
            if let seed = f.is_seed {
                out.append(contentsOf: #","is_seed":"#.utf8)
                JSONValue.bool(seed).write(into: &out)
            }
            out.append(contentsOf: #","name":"#.utf8)
            JSONValue.writeString(f.name, into: &out)
            out.append(contentsOf: #","piece_range":"#.utf8)
            JSONValue.array(f.piece_range.map { .int(Int64($0)) }).write(into: &out)
            out.append(contentsOf: #","priority":"#.utf8)
            JSONValue.int(Int64(f.priority)).write(into: &out)
            out.append(contentsOf: #","progress":"#.utf8)
            JSONValue.double(f.progress).write(into: &out)
            out.append(contentsOf: #","size":"#.utf8)
            JSONValue.int(f.size).write(into: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
        return out
    }
}

/// `app/buildInfo`.
public struct BuildInfo: Codable, Sendable, Equatable {
    public var qt: String
    public var libtorrent: String
    public var boost: String
    public var openssl: String
    public var zlib: String
    public var bitness: Int
    public var platform: String?
}
