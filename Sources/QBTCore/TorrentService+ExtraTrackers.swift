import Foundation
import HTTPFetch
import TorrentEngine

/// qBittorrent's "Automatically add these trackers to new downloads": `add_trackers` and 5.1's list fetched from
/// `add_trackers_url` (at start, when it changes, then every 24 h, through the proxy for qbtd's own fetches).
extension TorrentService {
    static let trackerListRefresh: Duration = .seconds(24 * 3600)
    static let maxTrackerListBytes = 4 << 20

    /// qBittorrent's `parseTrackerEntries`: one URL per line, trimmed; each empty line moves to the next tier.
    static func trackerEntries(_ text: String) -> [(url: String, tier: Int)] {
        var tier = 0, out: [(url: String, tier: Int)] = []
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let url = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if url.isEmpty { tier += 1 } else { out.append((url, tier)) }
        }
        return out
    }

    /// A new torrent gets the extra trackers, each list on tiers after the ones it has; a private torrent none.
    func addExtraTrackers(_ id: TorrentID) async {
        var lists: [[(url: String, tier: Int)]] = []
        if settings[\.addTrackersEnabled] { lists.append(Self.trackerEntries(settings[\.addTrackers])) }
        if settings[\.addTrackersFromURLEnabled] { lists.append(Self.trackerEntries(extraTrackerList)) }
        guard lists.contains(where: { !$0.isEmpty }) else { return }
        if let status = try? engine.status(id), status.hasMetadata, status.isPrivate { return }
        for entries in lists where !entries.isEmpty {
            let base = ((try? await trackers(id))?.map(\.tier).max() ?? -1) + 1
            try? await addTrackers(id, entries.map { ($0.url, base + $0.tier) })
        }
    }

    /// Starts, restarts or stops the list's refresher as the two preferences say.
    func configureTrackerList() async {
        // The settings first: nothing may await between cancelling the old refresher and starting the new one.
        let url = settings[\.addTrackersURL].trimmingCharacters(in: .whitespaces)
        let enabled = settings[\.addTrackersFromURLEnabled]
        extraTrackerTask?.cancel()
        extraTrackerTask = nil
        guard enabled, !url.isEmpty else {
            extraTrackerList = ""
            return
        }
        extraTrackerTask = Task { [weak self] in
            while !Task.isCancelled {
                await self?.fetchTrackerList(url)
                try? await Task.sleep(for: Self.trackerListRefresh)
            }
        }
    }

    func fetchTrackerList(_ url: String) async {
        do {
            let bytes = try await HTTPFetch.get(url, route: settings.fetchRoute(for: .misc), timeout: 30,
                                                maxBytes: Self.maxTrackerListBytes)
            guard !Task.isCancelled else { return }
            extraTrackerList = String(decoding: bytes, as: UTF8.self)
            log.add("Tracker list updated")
        } catch {
            log.add("Failed to update tracker list. Reason: \"\(error)\"", kind: .warning)
        }
    }
}
