import Foundation
import TorrentEngine

/// qBittorrent 5.2's metadata download (`torrents/fetchMetadata`): a magnet's metadata fetched by a torrent the
/// transfer list never shows, which downloads no piece and is taken out as soon as the metadata is in. Adding the
/// torrent for real takes it out first. Nothing here survives a restart, as in qBittorrent.
extension TorrentService {
    /// At most this many hidden fetches run at once; the oldest gives way to a new one.
    static let maxPrefetches = 32
    /// Fetched metadata kept for `saveMetadata`/`add` (the oldest is dropped first).
    static let maxPrefetched = 256

    /// Starts fetching a magnet's metadata (or says how far it got). Nil when the torrent is in the transfer list.
    func prefetchMetadata(_ parsed: ParsedTorrent) async throws -> TorrentSources.Prefetch? {
        let id = parsed.id
        if torrents[id] != nil { return nil }
        if let bytes = prefetched[id] { return .ready(bytes) }
        if prefetching.contains(id) { return .pending }
        guard case .magnet = parsed.source else { throw ServiceError.invalid("Unable to download metadata for '\(id)'") }
        if prefetching.count >= Self.maxPrefetches, let oldest = prefetching.first {
            prefetching.removeFirst()
            try? await engine.remove(oldest, deleteFiles: true)
        }
        var request = AddTorrentRequest(parsed, savePath: paths.dataDirectory + "/metadata")
        request.uploadMode = true
        addsStarted([id])
        do { _ = try await engine.add(request) } catch {
            await addSettled(id)
            throw ServiceError.invalid("Unable to download metadata for '\(id)'")
        }
        prefetching.append(id)
        await addSettled(id)  // metadata that came before the add answered finds the fetch
        return .pending
    }

    /// The metadata a fetch got, if it got it.
    func prefetchedMetadata(_ id: TorrentID) -> [UInt8]? { prefetched[id] }

    /// Whether a hidden fetch is running for this torrent.
    func isPrefetching(_ id: TorrentID) -> Bool { prefetching.contains(id) }

    /// The metadata is in: keep the .torrent and take the hidden torrent out.
    func prefetchArrived(_ id: TorrentID) async {
        guard let index = prefetching.firstIndex(of: id) else { return }
        prefetching.remove(at: index)
        if let bytes = try? await engine.exportTorrent(id) {
            prefetched[id] = bytes
            prefetchedOrder.append(id)
            if prefetchedOrder.count > Self.maxPrefetched { prefetched[prefetchedOrder.removeFirst()] = nil }
        }
        try? await engine.remove(id, deleteFiles: true)
    }

    /// A real add of the same torrent ends its hidden fetch (libtorrent holds one torrent per hash).
    func endPrefetch(_ id: TorrentID) async {
        guard let index = prefetching.firstIndex(of: id) else { return }
        prefetching.remove(at: index)
        try? await engine.remove(id, deleteFiles: true)
    }
}
