import TorrentEngine

/// The options of `torrents/add` after parsing, shared by every source in one request.
public struct AddOptions: Sendable, Equatable {
    /// Already resolved by `ServerPaths.savePath`; nil means the default save path.
    public var savePath: String?
    public var category: String?
    public var tags: [String] = []
    public var stopped = false
    public var skipChecking = false
    public var sequential = false
    public var firstLastPiecePrio = false
    public var rename: String?
    public var uploadLimit = 0
    public var downloadLimit = 0
    public var ratioLimit: Double = -2
    public var seedingTimeLimit = -2
    public var inactiveSeedingTimeLimit = -2
    /// nil = the `auto_tmm_enabled` preference.
    public var autoTMM: Bool?
    public var forced = false
    public var addToTopOfQueue = false

    public init() {}
}

public enum AddOutcome: Sendable, Equatable {
    case added(TorrentID)
    case duplicate(TorrentID)
    case invalid(String)
}
