import Foundation
import HTTPKit
import Synchronization
import TorrentEngine

/// 5.2's metadata look-ups (`fetchMetadata`, `parseMetadata`, `saveMetadata`, and `add` after them): which torrent a
/// source named, the .torrent known for a torrent, and the URLs being downloaded. qBittorrent keeps these per
/// session and never forgets; qbtd keeps one set for the server, bounded, the oldest dropped first.
final class MetadataCache: Sendable {
    struct Entry: Sendable {
        var metainfo: [UInt8]
        var summary: MetainfoSummary
    }

    private struct State {
        var sources: [String: TorrentID] = [:]
        var sourceOrder: [String] = []
        var entries: [TorrentID: Entry] = [:]
        var entryOrder: [TorrentID] = []
        var downloading: Set<String> = []
    }

    static let capacity = 256
    private let state = Mutex(State())

    func torrent(forSource source: String) -> TorrentID? { state.withLock { $0.sources[source] } }

    func entry(_ id: TorrentID) -> Entry? { state.withLock { $0.entries[id] } }

    func remember(source: String, as id: TorrentID) {
        state.withLock { s in
            if s.sources.updateValue(id, forKey: source) == nil { s.sourceOrder.append(source) }
            if s.sourceOrder.count > Self.capacity { s.sources[s.sourceOrder.removeFirst()] = nil }
        }
    }

    func store(_ entry: Entry, as id: TorrentID) {
        state.withLock { s in
            if s.entries.updateValue(entry, forKey: id) == nil { s.entryOrder.append(id) }
            if s.entryOrder.count > Self.capacity { s.entries[s.entryOrder.removeFirst()] = nil }
        }
    }

    /// `add` takes what it used: both look-ups for the source go.
    func forget(source: String) {
        state.withLock { s in
            guard let id = s.sources.removeValue(forKey: source) else { return }
            s.sourceOrder.removeAll { $0 == source }
            s.entries[id] = nil
            s.entryOrder.removeAll { $0 == id }
        }
    }

    func forget(torrent id: TorrentID) {
        state.withLock { s in
            s.entries[id] = nil
            s.entryOrder.removeAll { $0 == id }
        }
    }

    /// Marks a URL as being downloaded; false when it already is.
    func startDownload(_ url: String) -> Bool { state.withLock { $0.downloading.insert(url).inserted } }

    func endDownload(_ url: String) { _ = state.withLock { $0.downloading.remove(url) } }
}
