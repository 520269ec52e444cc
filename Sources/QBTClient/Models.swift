import Foundation

/// Decoding that tolerates what differs between qBittorrent versions: a missing key reads as the default.
extension KeyedDecodingContainer {
    func value<T: Decodable>(_ key: Key, _ fallback: T) -> T {
        (try? decodeIfPresent(T.self, forKey: key)) ?? fallback
    }
}

/// A row of `torrents/info`.
public struct Torrent: Decodable, Sendable, Equatable {
    public var hash, name, state, category, tags, savePath, contentPath, magnetURI: String
    public var size, totalSize, amountLeft, downloaded, uploaded, dlspeed, upspeed, eta, addedOn, completionOn: Int64
    public var dlLimit, upLimit, seedingTimeLimit, inactiveSeedingTimeLimit: Int64
    public var progress, ratio, ratioLimit: Double
    public var numSeeds, numLeechs, priority: Int

    enum CodingKeys: String, CodingKey {
        case hash, name, state, category, tags, size, downloaded, uploaded, dlspeed, upspeed, eta, progress, ratio, priority
        case savePath = "save_path", contentPath = "content_path", magnetURI = "magnet_uri", totalSize = "total_size"
        case amountLeft = "amount_left", addedOn = "added_on", completionOn = "completion_on", dlLimit = "dl_limit"
        case upLimit = "up_limit", seedingTimeLimit = "seeding_time_limit", ratioLimit = "ratio_limit"
        case inactiveSeedingTimeLimit = "inactive_seeding_time_limit", numSeeds = "num_seeds", numLeechs = "num_leechs"
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        hash = try c.decode(String.self, forKey: .hash)
        name = c.value(.name, ""); state = c.value(.state, ""); category = c.value(.category, "")
        tags = c.value(.tags, ""); savePath = c.value(.savePath, ""); contentPath = c.value(.contentPath, "")
        magnetURI = c.value(.magnetURI, "")
        size = c.value(.size, 0); totalSize = c.value(.totalSize, 0); amountLeft = c.value(.amountLeft, 0)
        downloaded = c.value(.downloaded, 0); uploaded = c.value(.uploaded, 0); dlspeed = c.value(.dlspeed, 0)
        upspeed = c.value(.upspeed, 0); eta = c.value(.eta, 0); addedOn = c.value(.addedOn, 0)
        completionOn = c.value(.completionOn, 0); dlLimit = c.value(.dlLimit, 0); upLimit = c.value(.upLimit, 0)
        seedingTimeLimit = c.value(.seedingTimeLimit, -2); inactiveSeedingTimeLimit = c.value(.inactiveSeedingTimeLimit, -2)
        progress = c.value(.progress, 0); ratio = c.value(.ratio, 0); ratioLimit = c.value(.ratioLimit, -2)
        numSeeds = c.value(.numSeeds, 0); numLeechs = c.value(.numLeechs, 0); priority = c.value(.priority, 0)
    }

    /// Done downloading, in either dialect's state names.
    public var isComplete: Bool { progress >= 1 }
    /// A state with no way forward without help.
    public var isErrored: Bool { state == "error" || state == "missingFiles" }
}

/// A row of `torrents/files`.
public struct TorrentFile: Decodable, Sendable {
    public var index: Int
    public var name: String
    public var size: Int64
    public var progress: Double
    public var priority: Int

    enum CodingKeys: String, CodingKey { case index, name, size, progress, priority }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        index = c.value(.index, -1); name = c.value(.name, ""); size = c.value(.size, 0)
        progress = c.value(.progress, 0); priority = c.value(.priority, 1)
    }
}

/// A row of `torrents/trackers`.
public struct Tracker: Decodable, Sendable {
    public var url, msg: String
    public var status, tier, numPeers, numSeeds: Int

    enum CodingKeys: String, CodingKey {
        case url, msg, status, tier, numPeers = "num_peers", numSeeds = "num_seeds"
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        url = c.value(.url, ""); msg = c.value(.msg, ""); status = c.value(.status, 0)
        tier = c.value(.tier, -1); numPeers = c.value(.numPeers, -1); numSeeds = c.value(.numSeeds, -1)
    }
}

/// A peer of `sync/torrentPeers`.
public struct Peer: Decodable, Sendable {
    public var ip, client, flags, connection: String
    public var port: Int
    public var progress: Double
    public var dlSpeed, upSpeed, downloaded, uploaded: Int64

    enum CodingKeys: String, CodingKey {
        case ip, client, flags, connection, port, progress, downloaded, uploaded
        case dlSpeed = "dl_speed", upSpeed = "up_speed"
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        ip = c.value(.ip, ""); client = c.value(.client, ""); flags = c.value(.flags, "")
        connection = c.value(.connection, ""); port = c.value(.port, 0); progress = c.value(.progress, 0)
        dlSpeed = c.value(.dlSpeed, 0); upSpeed = c.value(.upSpeed, 0)
        downloaded = c.value(.downloaded, 0); uploaded = c.value(.uploaded, 0)
    }
}

/// `transfer/info`.
public struct TransferInfo: Decodable, Sendable {
    public var dlInfoSpeed, dlInfoData, upInfoSpeed, upInfoData, dlRateLimit, upRateLimit, dhtNodes: Int64
    public var connectionStatus: String

    enum CodingKeys: String, CodingKey {
        case dlInfoSpeed = "dl_info_speed", dlInfoData = "dl_info_data", upInfoSpeed = "up_info_speed"
        case upInfoData = "up_info_data", dlRateLimit = "dl_rate_limit", upRateLimit = "up_rate_limit"
        case dhtNodes = "dht_nodes", connectionStatus = "connection_status"
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        dlInfoSpeed = c.value(.dlInfoSpeed, 0); dlInfoData = c.value(.dlInfoData, 0)
        upInfoSpeed = c.value(.upInfoSpeed, 0); upInfoData = c.value(.upInfoData, 0)
        dlRateLimit = c.value(.dlRateLimit, 0); upRateLimit = c.value(.upRateLimit, 0)
        dhtNodes = c.value(.dhtNodes, 0); connectionStatus = c.value(.connectionStatus, "")
    }
}

/// A line of `log/main`.
public struct LogEntry: Decodable, Sendable {
    public var id: Int
    public var message: String
    public var timestamp: Int64
    public var type: Int
}

/// A search job's `search/status`.
public struct SearchStatus: Decodable, Sendable {
    public var id: Int
    public var status: String
    public var total: Int
}

/// One result of `search/results`.
/// Encodable too: `qbt search --json` prints results under qBittorrent's names.
public struct SearchResult: Codable, Sendable {
    public var fileName, fileUrl, descrLink, siteUrl, engineName: String
    public var fileSize, nbSeeders, nbLeechers: Int64

    enum CodingKeys: String, CodingKey { case fileName, fileUrl, descrLink, siteUrl, engineName, fileSize, nbSeeders, nbLeechers }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        fileName = c.value(.fileName, ""); fileUrl = c.value(.fileUrl, ""); descrLink = c.value(.descrLink, "")
        siteUrl = c.value(.siteUrl, ""); engineName = c.value(.engineName, "")
        fileSize = c.value(.fileSize, -1); nbSeeders = c.value(.nbSeeders, -1); nbLeechers = c.value(.nbLeechers, -1)
    }
}

public struct SearchResults: Decodable, Sendable {
    public var results: [SearchResult]
    public var status: String
    public var total: Int
}

/// A row of `search/plugins`.
public struct SearchPlugin: Decodable, Sendable {
    public var name, fullName, version, url: String
    public var enabled: Bool

    enum CodingKeys: String, CodingKey { case name, fullName, version, url, enabled }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = c.value(.name, ""); fullName = c.value(.fullName, ""); version = c.value(.version, "")
        url = c.value(.url, ""); enabled = c.value(.enabled, false)
    }
}

/// qbtd's `stream/prepare` answer.
public struct PreparedStream: Decodable, Sendable {
    public var streamId, playbackUrl, infoHash, fileName, mimeType: String
    public var fileSize: Int64
}

/// A category of `torrents/categories`.
public struct Category: Decodable, Sendable {
    public var name, savePath: String
}
