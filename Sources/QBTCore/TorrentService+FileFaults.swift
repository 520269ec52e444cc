import Foundation
import SystemKit
import TorrentEngine

/// What qbtd does when a torrent's files fail. libtorrent stops downloading on a failed write (upload mode for a full
/// or read-only disk, an error and a pause otherwise), which a start undoes (`qbt_resume` clears both). A failed read
/// for a peer is only reported: the torrent keeps running and answers every request with a reject, a silent stall.
/// qbtd stops such a torrent and shows `missingFiles` (the files are gone: a vanished mount, a deleted folder) or
/// `error`, with the path and what to do in `qbtd_reason`, until a start or a recheck.
extension TorrentService {
    func fileFailed(_ id: TorrentID, _ fault: FileFault) async {
        guard let entry = torrents[id] else { return }
        if entry.facts.fileFault == nil { torrents[id]?.facts.fileFault = fault }
        // Only what lasts: files gone, I/O errors, permissions. A passing shortage (EMFILE, ENOMEM) is shown, not acted on.
        let lasting = fault.isMissingFiles || [EIO, EACCES, EPERM].contains(fault.code ?? 0)
        guard lasting, fault.operation == .read || fault.operation == .open, !entry.facts.halted, !entry.record.stopped,
              let status = try? engine.status(id), status.isFinished || status.isSeeding else { return }
        await halt(id, fault)
    }

    /// Stops it for a fault of its files, shown as `missingFiles` or `error` until a start or a recheck.
    func halt(_ id: TorrentID, _ fault: FileFault) async {
        guard let entry = torrents[id] else { return }
        torrents[id]?.facts.fileFault = fault
        torrents[id]?.facts.halted = true
        try? await engine.pause(id)
        log.add("Torrent \"\(entry.record.name.isEmpty ? id : entry.record.name)\" stopped: its data cannot be read "
                + "(\(fault.message)). Bring the files back, then start or recheck it", kind: .critical)
    }

    /// Finished torrents among `ids` whose content (the single file, or the root folder) is not on disk: a start
    /// looks before it seeds, so a vanished mount shows at once instead of at the first peer's request (files still
    /// open would go on reading the detached filesystem). One stat each, off the pool.
    func contentMissing(_ ids: [TorrentID]) async -> [TorrentID: FileFault] {
        let candidates: [(TorrentID, String)] = ids.compactMap { id in
            guard let status = try? engine.status(id), status.hasMetadata, status.isFinished || status.isSeeding,
                  !status.contentPath.isEmpty, status.contentPath != status.savePath else { return nil }
            return (id, status.contentPath)
        }
        guard !candidates.isEmpty else { return [:] }
        let absent = await offPool { candidates.filter { !FileManager.default.fileExists(atPath: $0.1) } }
        var out: [TorrentID: FileFault] = [:]
        for (id, path) in absent {
            out[id] = FileFault(operation: .open, code: ENOENT, message: "\(path): No such file or directory")
        }
        return out
    }

    /// Files that are not there when the torrent comes back (a NAS not mounted yet at start, a deleted folder):
    /// libtorrent would check the torrent, find nothing, and download it all again into the empty folder. qBittorrent
    /// shows `missingFiles` and waits; so does qbtd, until a start or a recheck says to go on.
    func resumeRejected(_ id: TorrentID, _ fault: FileFault) async {
        guard let entry = torrents[id] else { return }
        guard fault.isMissingFiles else {
            logger.info("torrent \(id): fast-resume data rejected (\(fault)); checking its files")
            return
        }
        torrents[id]?.facts.fileFault = fault
        torrents[id]?.facts.halted = true
        torrents[id]?.work.recheckOnStart = true
        try? await engine.pause(id)
        log.add("Torrent \"\(entry.record.name.isEmpty ? id : entry.record.name)\" stopped: its files are missing "
                + "(\(fault.message)). Bring them back (mount their disk), then recheck or start it", kind: .critical)
    }

    /// A start or a recheck tries again from a clean slate; a start of a torrent whose files were missing when it
    /// came back checks them first (qBittorrent reloads it from its fast-resume data for the same reason).
    func clearFileFault(_ id: TorrentID, starting: Bool = false) async {
        torrents[id]?.facts.fileFault = nil
        torrents[id]?.facts.halted = false
        if torrents[id]?.work.recheckOnStart == true {
            torrents[id]?.work.recheckOnStart = false
            if starting { try? await engine.recheck(id) }
        }
    }
}
