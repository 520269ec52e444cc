import TorrentEngine

/// qBittorrent's torrent states (`TorrentImpl::updateState`), with both dialects' names.
public enum QBTState: String, Sendable, CaseIterable {
    case error, missingFiles, uploading, stoppedUP, queuedUP, stalledUP, checkingUP, forcedUP
    case allocating, downloading, metaDL, forcedMetaDL, stoppedDL, queuedDL, stalledDL, checkingDL, forcedDL
    case checkingResumeData, moving, unknown

    /// The name in the 4.x dialect (`pausedUP`/`pausedDL`); every other state is spelled the same.
    public var legacyName: String {
        switch self {
        case .stoppedUP: "pausedUP"
        case .stoppedDL: "pausedDL"
        default: rawValue
        }
    }

    /// Derives the state the way qBittorrent 5.1 does; the first matching rule wins. `held`: qbtd's free-space guard
    /// holds it, which shows as stopped (before an error the full disk may have left).
    public init(status: TorrentStatus, stopped: Bool, queued: Bool = false, forced: Bool = false, moving: Bool = false,
                held: Bool = false) {
        if status.state == .checkingResumeData { self = .checkingResumeData; return }
        if moving { self = .moving; return }
        if held {
            self = status.isFinished || status.state == .seeding ? .stoppedUP : .stoppedDL
            return
        }
        if !status.error.isEmpty || status.uploadMode { self = .error; return }
        if !status.hasMetadata {
            self = stopped ? .stoppedDL : queued ? .queuedDL : forced ? .forcedMetaDL : .metaDL
            return
        }
        if status.state == .checkingFiles && !stopped {
            self = status.completedTime > 0 || status.isFinished ? .checkingUP : .checkingDL
            return
        }
        if status.isFinished || status.state == .finished || status.state == .seeding {
            self = stopped ? .stoppedUP : queued ? .queuedUP : forced ? .forcedUP
                : status.uploadRate > 0 ? .uploading : .stalledUP
            return
        }
        self = stopped ? .stoppedDL : queued ? .queuedDL : forced ? .forcedDL
            : status.downloadRate > 0 ? .downloading : .stalledDL
    }

    var isDownloadingGroup: Bool {
        [.downloading, .metaDL, .forcedMetaDL, .stalledDL, .checkingDL, .stoppedDL, .queuedDL, .forcedDL].contains(self)
    }

    var isSeedingGroup: Bool { [.uploading, .stalledUP, .checkingUP, .queuedUP, .forcedUP].contains(self) }
}

/// `torrents/info`'s `filter`, both dialects; an unknown name means all, as in qBittorrent.
public enum QBTFilter: Sendable {
    case all, downloading, seeding, completed, stopped, running, active, inactive, stalled
    case stalledUploading, stalledDownloading, checking, moving, errored

    public init(_ name: String?) {
        switch name ?? "" {
        case "downloading": self = .downloading
        case "seeding": self = .seeding
        case "completed": self = .completed
        case "paused", "stopped": self = .stopped
        case "resumed", "running": self = .running
        case "active": self = .active
        case "inactive": self = .inactive
        case "stalled": self = .stalled
        case "stalled_uploading": self = .stalledUploading
        case "stalled_downloading": self = .stalledDownloading
        case "checking": self = .checking
        case "moving": self = .moving
        case "errored": self = .errored
        default: self = .all
        }
    }

    /// `transferring` (5.2's rule): a torrent is active while it moves data (payload up or down), whatever its state.
    public func matches(_ state: QBTState, stopped: Bool, uploadRate: Int, downloadRate: Int = 0,
                        transferring: Bool = false) -> Bool {
        if transferring, self == .active || self == .inactive {
            return (uploadRate > 0 || downloadRate > 0) == (self == .active)
        }
        return matches(state, stopped: stopped, uploadRate: uploadRate)
    }

    func matches(_ state: QBTState, stopped: Bool, uploadRate: Int) -> Bool {
        switch self {
        case .all: true
        case .downloading: state.isDownloadingGroup
        case .seeding: state.isSeedingGroup
        case .completed: state.isSeedingGroup || state == .stoppedUP
        case .stopped: stopped
        case .running: !stopped
        case .active: Self.isActive(state, uploadRate: uploadRate)
        case .inactive: !Self.isActive(state, uploadRate: uploadRate)
        case .stalled: state == .stalledUP || state == .stalledDL
        case .stalledUploading: state == .stalledUP
        case .stalledDownloading: state == .stalledDL
        case .checking: [.checkingUP, .checkingDL, .checkingResumeData].contains(state)
        case .moving: state == .moving
        case .errored: state == .error || state == .missingFiles
        }
    }

    static func isActive(_ state: QBTState, uploadRate: Int) -> Bool {
        switch state {
        case .downloading, .metaDL, .forcedMetaDL, .forcedDL, .uploading, .forcedUP, .moving: true
        case .stalledDL: uploadRate > 0
        default: false
        }
    }
}
