import Store
import TorrentEngine

/// Where a torrent comes from: its trackers, web seeds, .torrent file and metadata fetched ahead (`torrents/trackers`,
/// `addWebSeeds`, `export`, 5.2's `fetchMetadata`): the facade the HTTP layer calls.
public struct TorrentSources: Sendable {
    let service: TorrentService

    /// The trackers in qbtd's own order (as added or edited, by tier), as qBittorrent keeps its list: libtorrent
    /// moves a tracker that fails to the end of its tier, which must not reorder what clients see.
    public func trackers(_ id: TorrentID) async throws -> [TrackerEntry] { try await service.trackers(id) }

    /// Adds trackers at the tiers given, skipping URLs already there (as `TorrentImpl::addTrackers`).
    public func addTrackers(_ id: TorrentID, _ entries: [(url: String, tier: Int)]) async throws {
        try await service.addTrackers(id, entries)
    }

    /// Gives a tracker a new URL, a new tier (5.2), or both; nothing to change is no change.
    public func editTracker(_ id: TorrentID, from oldURL: String, to newURL: String?, tier: Int? = nil) async throws {
        try await service.editTracker(id, from: oldURL, to: newURL, tier: tier)
    }

    public func removeTrackers(_ id: TorrentID, urls: [String]) async throws {
        try await service.removeTrackers(id, urls: urls)
    }

    public func webSeeds(_ id: TorrentID) async throws -> [String] { try await service.webSeeds(id) }

    public func addWebSeeds(_ id: TorrentID, urls: [String]) async throws {
        try await service.addWebSeeds(id, urls: urls)
    }

    public func removeWebSeeds(_ id: TorrentID, urls: [String]) async throws {
        try await service.removeWebSeeds(id, urls: urls)
    }

    public func editWebSeed(_ id: TorrentID, from oldURL: String, to newURL: String) async throws {
        try await service.editWebSeed(id, from: oldURL, to: newURL)
    }

    /// The tracker list last fetched from `add_trackers_url` (5.1's `add_trackers_url_list`).
    public var extraTrackerList: String { get async { await service.extraTrackerList } }

    public func export(_ id: TorrentID) async throws -> [UInt8] { try await service.export(id) }

    /// Starts fetching a magnet's metadata (or says how far it got). Nil when the torrent is in the transfer list.
    public func prefetchMetadata(_ parsed: ParsedTorrent) async throws -> Prefetch? {
        try await service.prefetchMetadata(parsed)
    }

    /// The metadata a fetch got, if it got it.
    public func prefetchedMetadata(_ id: TorrentID) async -> [UInt8]? { await service.prefetchedMetadata(id) }

    /// Whether a hidden fetch is running for this torrent.
    public func isPrefetching(_ id: TorrentID) async -> Bool { await service.isPrefetching(id) }
}

extension TorrentSources {
    /// Where a metadata fetch stands.
    public enum Prefetch: Sendable {
        /// Running; poll again.
        case pending
        /// The .torrent, made from the metadata the swarm sent.
        case ready([UInt8])
    }
}

extension TorrentService {
    public nonisolated var sources: TorrentSources { TorrentSources(service: self) }
}
