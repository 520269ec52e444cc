import Store
import TorrentEngine

/// What a row of `torrents/info` and `sync/maindata` shows about a torrent besides the engine's status: its record,
/// tags, trackers, web seeds, how its announces went, and whether its data is moving. A change to any of it makes the
/// torrent's row again (`TorrentTable` compares it on every write); `TorrentFactsRowTests` fails when a field here
/// does not reach the row.
/// Codable: a cluster's nodes publish their torrents' facts and statuses to each other (`Cluster.TorrentViewsSync`).
public struct TorrentFacts: Sendable, Equatable, Codable {
    public var record: TorrentRecord
    public var tags: [String]
    /// Tracker URLs as the engine has them (`sync/maindata` lists them for every torrent on each poll).
    public var trackers: [String] = []
    /// Web seed URLs, for the magnet link every listing carries.
    public var webSeeds: [String] = []
    /// How its announces went (5.2's `has_tracker_*` flags), folded over `TorrentWork.announceOutcomes`.
    public var announce: AnnounceFlags = []
    /// Whether its data is being moved (qBittorrent's `moving` state).
    public var moving = false
    /// Why qbtd's free-space guard holds it (`TorrentService+DiskGuard`): shown as stopped, with this reason.
    public var diskHold: String?
    /// The first file error the engine reported since its last start or recheck (later ones are often consequences,
    /// such as libtorrent's "Bad address" after a write into a full disk failed), shown while it is in `error`.
    public var fileFault: FileFault?
    /// qbtd stopped it for `fileFault`: a read that fails (a vanished or unreadable mount) leaves libtorrent's torrent
    /// running and serving nothing; qbtd shows `missingFiles` or `error` instead, until a start or a recheck.
    public var halted = false

    /// What `qbtd_reason` shows: why it is held; else the first file error since its last start or recheck (what
    /// put it in error, or a failure it went on after); else libtorrent's error.
    public func reason(engineError: String) -> String {
        if let diskHold { return diskHold }
        guard let fileFault else { return engineError }
        return halted ? "\(fileFault.message). Bring the files (or their mount) back, then start or recheck the torrent"
            : fileFault.message
    }

    public init(record: TorrentRecord, tags: [String]) {
        self.record = record
        self.tags = tags
    }
}

/// What the service keeps about a torrent while it works on it; never shown in a row.
struct TorrentWork: Sendable {
    /// The last outcome of each tracker's announces, per URL.
    var announceOutcomes: [String: AnnounceFlags] = [:]
    /// The content layout waiting for a magnet's metadata.
    var pendingLayout: ContentLayout?
    /// Finished since it last downloaded (qBittorrent's `torrentFinished` fires once per transition).
    var finished = false
    /// Finished, but its data is still moving out of the temp path: it counts as finished once it is moved.
    var finishAfterMove = false
    /// Renames of `.!qB` files not yet confirmed, and whether it finished while they were in flight.
    var renamesInFlight = 0
    var finishAfterRenames = false
    /// Its files were missing when it came back: libtorrent's check found nothing, so a start checks them again
    /// (they may be back) rather than download everything.
    var recheckOnStart = false
    /// Its place in the download queue as the store has it (-1: not queued); a clean stop stores the ones that moved.
    var storedQueuePosition = -1
}

/// Everything the service holds about one torrent, in one value: removing a torrent is removing its entry.
struct TorrentEntry: Sendable {
    var facts: TorrentFacts
    var work = TorrentWork()

    init(_ stored: StoredTorrent) { facts = TorrentFacts(record: stored.record, tags: stored.tags) }

    /// Trackers and web seeds as the engine took them.
    mutating func remember(_ added: AddedTorrent) {
        facts.trackers = added.trackers
        facts.webSeeds = added.webSeeds
    }

    var record: TorrentRecord {
        get { facts.record }
        set { facts.record = newValue }
    }

    var tags: [String] {
        get { facts.tags }
        set { facts.tags = newValue }
    }
}
