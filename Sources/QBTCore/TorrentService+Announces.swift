import TorrentEngine

/// What each tracker last answered, kept from the engine's tracker events (never by asking libtorrent on a request):
/// 5.2's `has_tracker_warning`, `has_tracker_error` and `has_other_announce_error`, and a log line when a tracker
/// starts failing.
extension TorrentService {
    func noteAnnounce(_ id: TorrentID, url: String, _ status: TrackerEntry.Status, _ message: String) {
        guard torrents[id] != nil, trackerURLs[id]?.contains(url) ?? false else { return }
        let outcome: AnnounceFlags = switch status {
        case .working: message.isEmpty ? [] : .warning
        case .trackerError: .trackerError
        case .notWorking, .unreachable: .otherError
        case .disabled, .notContacted, .updating: []
        }
        let before = announceOutcomes[id]?[url] ?? []
        announceOutcomes[id, default: [:]][url] = outcome
        if outcome != before, !outcome.isDisjoint(with: [.trackerError, .otherError]) {
            let name = torrents[id]?.record.name ?? id
            log.add("Tracker \"\(url)\" of torrent \"\(name)\" is not working: \(message.isEmpty ? "no reason given" : message)",
                    kind: .warning)
        }
        fold(id)
    }

    /// Drops what removed trackers said.
    func forgetAnnounces(_ id: TorrentID, keeping urls: Set<String>) {
        guard let outcomes = announceOutcomes[id] else { return }
        announceOutcomes[id] = outcomes.filter { urls.contains($0.key) }
        fold(id)
    }

    private func fold(_ id: TorrentID) {
        let flags = announceOutcomes[id]?.values.reduce(into: AnnounceFlags()) { $0.formUnion($1) } ?? []
        if (announceFlags[id] ?? []) != flags { announceFlags[id] = flags.isEmpty ? nil : flags }
    }
}
