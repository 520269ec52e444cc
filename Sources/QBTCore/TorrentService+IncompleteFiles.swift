import TorrentEngine

/// qBittorrent's `incomplete_files_ext`: a file that is not complete yet is named `name.!qB` on disk, and loses the
/// suffix as soon as it completes. Clients never see the suffix (`TorrentFile.path` leaves it out). The names are
/// put right (qBittorrent's `manageActualFilePaths`) once a torrent is checked (after an add, a restart or a
/// recheck), when a magnet's metadata arrives, when it finishes, and on every torrent when the preference changes;
/// each file that completes is renamed at once.
extension TorrentService {
    /// Renames every file of these torrents to what it should be called on disk now. While the preference is off
    /// only its change (`preferenceChanged`) renames: a check or a finish then has nothing to put right, and a
    /// restart's thousands of checks cost no file listing each.
    func markIncompleteFiles(_ ids: some Sequence<TorrentID>, preferenceChanged: Bool = false) async {
        let on = settings[\.incompleteFilesExt]
        guard on || preferenceChanged else { return }
        for id in ids { await markIncompleteFiles(id, on: on) }
    }

    func markIncompleteFiles(_ id: TorrentID, on: Bool) async {
        guard torrents[id] != nil, let files = try? await engine.files(id) else { return }
        for file in files {
            let wanted = on && file.size > 0 && file.downloaded < file.size ? file.path + TorrentFile.incompleteSuffix : file.path
            if wanted != file.diskPath { await rename(id, file, to: wanted) }
        }
    }

    /// A file just completed: it takes its own name (only while the preference is on, as qBittorrent does).
    func fileCompleted(_ id: TorrentID, file index: Int) async {
        guard torrents[id] != nil, settings[\.incompleteFilesExt],
              let file = try? await engine.files(id).first(where: { $0.index == index }), file.diskPath != file.path
        else { return }
        await rename(id, file, to: file.path)
    }

    private func rename(_ id: TorrentID, _ file: TorrentFile, to path: String) async {
        do {
            try await engine.renameFile(id, index: file.index, to: path)
            torrents[id]?.work.renamesInFlight += 1
        } catch {
            log.add("Could not rename \"\(file.diskPath)\" of torrent \(id): \(error)", kind: .warning)
        }
    }

    /// A rename was confirmed (or failed): a finished torrent that waited for its names is finished now.
    func renameDone(_ id: TorrentID) async {
        guard let work = torrents[id]?.work, work.renamesInFlight > 0 else { return }
        torrents[id]?.work.renamesInFlight -= 1
        guard work.renamesInFlight == 1, work.finishAfterRenames else { return }
        torrents[id]?.work.finishAfterRenames = false
        await torrentFinished(id)
    }

    /// The name on disk for a file given a new path: with the suffix it has now, if it has one.
    static func diskPath(of file: TorrentFile, renamedTo path: String) -> String {
        file.diskPath == file.path ? path : path + TorrentFile.incompleteSuffix
    }
}
