import Foundation
import TorrentEngine

/// qBittorrent's export folders: a copy of the .torrent in `export_dir` when a torrent is added (a magnet's when its
/// metadata arrives) and in `export_dir_fin` when it finishes.
extension TorrentService {
    /// Where a copy of the .torrent goes when a torrent is added (or finishes): `export_dir` (`export_dir_fin`), else
    /// 5.3's backup folder when it is on (a relative one under the data folder, as qBittorrent's is under its
    /// profile's); "" for none.
    func exportFolder(finished: Bool) -> String {
        let legacy = settings[finished ? \.exportDirFin : \.exportDir]
        if !legacy.isEmpty { return legacy }
        guard settings[finished ? \.torrentFilesFinishedBackupDirEnabled : \.torrentFilesBackupEnabled] else { return "" }
        let folder = settings[finished ? \.torrentFilesFinishedBackupDir : \.torrentFilesBackupDir]
        if folder.hasPrefix("/") { return folder }
        return paths.dataDirectory + "/" + (folder.isEmpty ? "backup" : folder)
    }

    func exportTorrentFile(_ id: TorrentID, finished: Bool) async {
        let folder = exportFolder(finished: finished)
        guard !folder.isEmpty, let name = torrents[id]?.record.name else { return }
        do {
            guard let directory = try? paths.savePath(folder) else {
                throw ServiceError.forbidden("\(folder) is not a folder qbtd may write to")
            }
            let bytes = try await engine.exportTorrent(id)
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let base = Self.validFileName(name.isEmpty ? id : name)
            var path = directory + "/" + base + ".torrent"
            var n = 0
            while FileManager.default.fileExists(atPath: path) {
                n += 1
                path = directory + "/" + base + " (\(n)).torrent"
            }
            try Data(bytes).write(to: URL(fileURLWithPath: path), options: .withoutOverwriting)
        } catch {
            log.add("Failed to export torrent. Torrent: \"\(name)\". Destination: \"\(folder)\". Reason: \"\(error)\"",
                    kind: .warning)
        }
    }

    /// qBittorrent's `toValidFileName`: each run of `\ / : ? " * < > |` becomes one space; trimmed.
    static func validFileName(_ name: String) -> String {
        let trimmed = spacingOut(":?\"*<>|\\/", in: name).trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty || trimmed == "." || trimmed == ".." ? "torrent" : trimmed
    }

    /// Each run of the characters in `set` becomes one space (qBittorrent's `toValidFileName`/`toValidPath`).
    static func spacingOut(_ set: String, in name: String) -> String {
        var out = "", inRun = false
        for c in name {
            if set.contains(c) {
                if !inRun { out.append(" ") }
                inRun = true
            } else {
                out.append(c)
                inRun = false
            }
        }
        return out
    }
}
