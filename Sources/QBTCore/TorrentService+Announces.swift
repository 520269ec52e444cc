import TorrentEngine

/// What each tracker last answered, kept from the engine's tracker events (never by asking libtorrent on a request):
/// 5.2's `has_tracker_warning`, `has_tracker_error` and `has_other_announce_error`, and a log line when a tracker
/// starts failing.
extension TorrentService {
    func noteAnnounce(_ id: TorrentID, url: String, _ status: TrackerEntry.Status, _ message: String) {
        guard let entry = torrents[id], entry.facts.trackers.contains(url) else { return }
        let outcome: AnnounceFlags = switch status {
        case .working: message.isEmpty ? [] : .warning
        case .trackerError: .trackerError
        case .notWorking, .unreachable: .otherError
        case .disabled, .notContacted, .updating: []
        }
        let before = entry.work.announceOutcomes[url] ?? []
        guard outcome != before else { return }
        torrents[id]?.work.announceOutcomes[url] = outcome
        if !outcome.isDisjoint(with: [.trackerError, .otherError]) {
            let name = entry.record.name
            log.add("Tracker \"\(url)\" of torrent \"\(name)\" is not working: \(message.isEmpty ? "no reason given" : message)",
                    kind: .warning)
        }
        fold(id)
    }

    /// Drops what removed trackers said.
    func forgetAnnounces(_ id: TorrentID, keeping urls: Set<String>) {
        guard let outcomes = torrents[id]?.work.announceOutcomes else { return }
        torrents[id]?.work.announceOutcomes = outcomes.filter { urls.contains($0.key) }
        fold(id)
    }

    private func fold(_ id: TorrentID) {
        guard let outcomes = torrents[id]?.work.announceOutcomes else { return }
        torrents[id]?.facts.announce = outcomes.values.reduce(into: AnnounceFlags()) { $0.formUnion($1) }
    }
}
