import Foundation
import TorrentEngine

/// qBittorrent's stop conditions: a torrent stops by itself once its metadata has arrived, or once its files were
/// checked (`torrent_stop_condition`, add's `stopCondition`). The condition is stored with the torrent, so a restart
/// keeps it.
public enum StopCondition: String, Sendable {
    case metadataReceived = "MetadataReceived"
    case filesChecked = "FilesChecked"
}

extension TorrentService {
    func meetStopCondition(_ id: TorrentID) async {
        guard let record = torrents[id]?.record else { return }
        do {
            try await update(id) { $0.stopped = true; $0.stopCondition = nil }
            await applyRunState(id)
            try? await engine.saveResumeData(id)
            log.add("Torrent stopped. Torrent: \"\(record.name)\"")
        } catch {
            log.add("Could not stop torrent \"\(record.name)\" at its stop condition: \(error)", kind: .warning)
        }
    }

    /// A condition met while the torrent was being added is met at once: its event, raised before the add answered,
    /// is handled only after the torrent is set up (`addSettled`), and the download must not run on until then.
    func catchUpStopCondition(_ id: TorrentID) async {
        guard let condition = torrents[id]?.record.stopCondition.flatMap(StopCondition.init(rawValue:)),
              let status = try? engine.status(id), status.hasMetadata else { return }
        switch condition {
        case .metadataReceived: await meetStopCondition(id)
        case .filesChecked where ![.checkingFiles, .checkingResumeData].contains(status.state): await meetStopCondition(id)
        case .filesChecked: break
        }
    }
}
