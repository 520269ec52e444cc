import Foundation
import SystemKit
import TorrentEngine

/// qbtd's free-space guard (`disk_guard_min_free_mib`): a torrent still downloading into a filesystem whose free
/// space falls under the floor is held (paused, shown `stoppedDL` with the reason in `qbtd_reason`) before libtorrent
/// meets ENOSPC, and let go by itself once the space is back. A torrent a full disk already put in `error` on that
/// filesystem is taken over the same way (its error cleared when it is let go). A stop by hand ends the hold.
extension TorrentService {
    /// The free space (bytes) under which downloads are held; 0: the guard is off.
    nonisolated var diskGuardFloor: Int64 { Int64(max(0, settings[\.diskGuardMinFreeMiB])) << 20 }

    /// Space above the floor a held torrent waits for before it is let go, so it does not stop again at once.
    static let guardHeadroom: Int64 = 16 << 20

    /// Runs until cancelled: one check, then the next after a pause that shrinks as the downloads near the floor
    /// (at the session's receive rate since the last check, half the time left before the free space would cross
    /// it; 0.2–2 s). There is no event for free space: this is the one clock the guard needs.
    func guardDiskSpace() async {
        let clock = ContinuousClock()
        var last = (bytes: engine.snapshot.counters.receivedBytes, at: clock.now)
        while !Task.isCancelled {
            let margin = await checkDiskSpace()
            let now = (bytes: engine.snapshot.counters.receivedBytes, at: clock.now)
            let seconds = max((now.at - last.at).inSeconds, 0.001)
            let rate = max(Double(now.bytes - last.bytes) / seconds, 1)
            last = now
            let pause = margin.map { min(2.0, max(0.2, Double($0) / rate / 2)) } ?? 2.0
            try? await Task.sleep(for: .milliseconds(Int(pause * 1000)))
        }
    }

    /// Holds and lets go by the free space of each filesystem torrents write into; returns the smallest free space
    /// above the floor among them (nil: nothing is watched).
    @discardableResult
    func checkDiskSpace() async -> Int64? {
        let floor = diskGuardFloor
        var watched: [String: [TorrentID]] = [:]  // save path → torrents that write there, or are held there
        // Through the engine's statuses first: only unfinished torrents (and those a full disk stopped) can write, only
        // paused ones can be held, and a seedbox's torrents are mostly finished and running: most cost one look at
        // their status.
        for (id, published) in engine.snapshot.torrents {
            let status = published.status
            guard status.paused || status.uploadMode || !status.error.isEmpty
                    || (!status.isFinished && status.totalWantedDone < status.totalWanted),
                  let entry = torrents[id] else { continue }
            if entry.facts.diskHold != nil || (floor > 0 && Self.writes(entry, status)) {
                watched[status.savePath, default: []].append(id)
            }
        }
        guard !watched.isEmpty else { return nil }
        let paths = Array(watched.keys)
        let free = await offPool { paths.map { DiskSpace.availableWhere($0) } }
        var least: Int64?
        for (path, space) in zip(paths, free) {
            guard let space else { continue }  // a filesystem that cannot be read: the engine's own errors say why
            let ids = watched[path] ?? []
            if floor > 0, space < floor {
                for id in ids where torrents[id]?.facts.diskHold == nil { await hold(id, path: path, free: space, floor: floor) }
            } else if floor == 0 || space >= floor + Self.guardHeadroom {
                for id in ids where torrents[id]?.facts.diskHold != nil { await letGo(id, path: path, free: space) }
            }
            if floor > 0 { least = min(least ?? .max, max(0, space - floor)) }
        }
        return least
    }

    /// Whether the guard watches it: started, with metadata, wanting bytes it has not written; or in the error a full
    /// disk leaves (libtorrent's upload mode, or a write that failed with ENOSPC).
    static func writes(_ entry: TorrentEntry, _ status: TorrentStatus) -> Bool {
        guard !entry.record.stopped else { return false }
        if status.uploadMode || entry.facts.fileFault?.isDiskFull == true { return true }
        return status.hasMetadata && !status.isFinished && status.totalWantedDone < status.totalWanted
    }

    private func hold(_ id: TorrentID, path: String, free: Int64, floor: Int64) async {
        let reason = "Paused by qbtd's free-space guard: \(Self.mebibytes(free)) free on \(path), under the "
            + "\(Self.mebibytes(floor)) floor (disk_guard_min_free_mib); it starts again when the space is back"
        torrents[id]?.facts.diskHold = reason
        try? await engine.pause(id)
        log.add("Torrent \"\(torrents[id]?.record.name ?? id)\": \(reason)", kind: .warning)
    }

    private func letGo(_ id: TorrentID, path: String, free: Int64) async {
        torrents[id]?.facts.diskHold = nil
        await clearFileFault(id)
        await applyRunState(id)
        log.add("Torrent \"\(torrents[id]?.record.name ?? id)\" started again by qbtd's free-space guard: "
                + "\(Self.mebibytes(free)) free on \(path)", kind: .info)
    }

    static func mebibytes(_ bytes: Int64) -> String { "\(bytes >> 20) MiB" }
}
