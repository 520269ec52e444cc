import Foundation
import SystemKit
import TorrentEngine

/// What qBittorrent does by itself when a torrent is added or finishes: run the user's programs.
extension TorrentService {
    /// A new torrent (not one restored at start): `autorun_on_torrent_added_*`.
    func torrentAdded(_ id: TorrentID, hasMetadata: Bool) async {
        if hasMetadata {
            await applyExcludedFileNames(id)
            await exportTorrentFile(id, finished: false)
        }
        guard settings[\.autorunOnTorrentAddedEnabled] else { return }
        await runExternalProgram(settings[\.autorunOnTorrentAddedProgram], for: id)
    }

    /// A torrent that became finished (its data where it belongs): `autorun_*`.
    func torrentFinished(_ id: TorrentID) async {
        guard let entry = torrents[id], !entry.work.finished else { return }
        torrents[id]?.work.finished = true
        await exportTorrentFile(id, finished: true)
        await sendCompletionMail(id)
        guard settings[\.autorunEnabled] else { return }
        await runExternalProgram(settings[\.autorunProgram], for: id)
    }

    func runExternalProgram(_ template: String, for id: TorrentID) async {
        let values = await programValues(id)
        let arguments = ExternalProgram.arguments(template, values)
        guard !arguments.isEmpty else { return }
        let command = ExternalProgram.substitute(template.trimmingCharacters(in: .whitespacesAndNewlines), values)
        let name = values.name, log = self.log
        let error = ExternalProgram.launch(arguments) { status in
            log.add("External program ended (\(status)). Torrent: \"\(name)\". Command: `\(command)`",
                    kind: status == "exit code 0" ? .normal : .warning)
        }
        if error == 0 {
            log.add("Running external program. Torrent: \"\(name)\". Command: `\(command)`")
        } else {
            log.add("Failed to run external program. Torrent: \"\(name)\". Command: `\(command)` (\(String(cString: strerror(error))))",
                    kind: .warning)
        }
    }

    /// The placeholders' values, as qBittorrent's `runExternalProgram` reads them off the torrent.
    func programValues(_ id: TorrentID) async -> ExternalProgram.Values {
        var v = ExternalProgram.Values()
        guard let stored = torrents[id] else { return v }
        v.id = id
        v.name = stored.record.name
        v.category = stored.record.category ?? ""
        v.tags = stored.tags.sorted { $0.localizedStandardCompare($1) == .orderedAscending }
        v.savePath = stored.record.savePath
        if let status = try? engine.status(id) {
            if v.name.isEmpty { v.name = status.name }
            v.infoHashV1 = status.infoHashV1
            v.infoHashV2 = status.infoHashV2
            v.tracker = status.currentTracker.isEmpty ? torrents[id]?.facts.trackers.first ?? "" : status.currentTracker
            if status.hasMetadata {
                v.contentPath = status.contentPath
                v.rootPath = status.rootPath
            }
        }
        if let files = try? await engine.files(id), !files.isEmpty {
            v.fileCount = files.count
            v.totalSize = files.reduce(0) { $0 + $1.size }
        }
        return v
    }
}
