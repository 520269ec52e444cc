import Store
import TorrentEngine

/// One torrent as the API shows it: what is stored about it joined with what the engine says now.
public struct TorrentView: Sendable {
    public var record: TorrentRecord
    public var tags: [String]
    public var status: TorrentStatus
    public var state: QBTState
    public var trackers: [String] = []
    public var webSeeds: [String] = []
    public var globalLimits = ShareLimits()

    public var id: TorrentID { record.id }
    public var name: String { !record.name.isEmpty ? record.name : status.name.isEmpty ? record.id : status.name }

    /// The limits in force: the torrent's own, or the global ones where it says "use global" (-2).
    public var maxRatio: Double { record.ratioLimit == -2 ? globalLimits.ratio : record.ratioLimit }
    public var maxSeedingTime: Int { record.seedingTimeLimit == -2 ? globalLimits.seedingTime : record.seedingTimeLimit }
    public var maxInactiveSeedingTime: Int {
        record.inactiveSeedingTimeLimit == -2 ? globalLimits.inactiveSeedingTime : record.inactiveSeedingTimeLimit
    }
}

/// The global share limits (-1 = none), from the `max_ratio*`/`max_*seeding_time*` preferences.
public struct ShareLimits: Sendable, Equatable {
    public var ratio: Double = -1
    public var seedingTime = -1
    public var inactiveSeedingTime = -1

    public init() {}

    init(_ settings: ServerSettings) async {
        ratio = await settings.bool("max_ratio_enabled") ? await settings.double("max_ratio") : -1
        seedingTime = await settings.bool("max_seeding_time_enabled") ? await settings.int("max_seeding_time") : -1
        inactiveSeedingTime = await settings.bool("max_inactive_seeding_time_enabled")
            ? await settings.int("max_inactive_seeding_time") : -1
    }
}
