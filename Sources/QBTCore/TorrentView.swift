import Foundation
import Store
import TorrentEngine

/// One torrent as the API shows it: what is stored about it joined with what the engine says now.
public struct TorrentView: Sendable {
    /// What the service holds about it: record, tags, trackers, web seeds, announces, whether it is moving.
    public var facts: TorrentFacts
    public var status: TorrentStatus
    public var state: QBTState
    public var globalLimits = ShareLimits()
    /// Whether libtorrent's queue was on when the view was made (its state depends on it).
    public var queueingEnabled = false
    /// In a cluster, the node that runs it when that is another one; nil: this process.
    public var node: String?
    /// Why that node cannot run it now (lapsed or stopped): shown as qBittorrent's `error`, with this reason.
    public var nodeDown: String?

    public init(facts: TorrentFacts, status: TorrentStatus, globalLimits: ShareLimits, queueingEnabled: Bool) {
        let r = facts.record
        let queued = queueingEnabled && !r.stopped && !r.forceStart && status.autoManaged && status.paused
        self.facts = facts
        self.status = status
        self.state = facts.halted ? (facts.fileFault?.isMissingFiles == true ? .missingFiles : .error)
            : QBTState(status: status, stopped: r.stopped, queued: queued, forced: r.forceStart, moving: facts.moving,
                       held: facts.diskHold != nil)
        self.globalLimits = globalLimits
        self.queueingEnabled = queueingEnabled
    }

    init(facts: TorrentFacts, status: TorrentStatus, rowSettings: RowSettings) {
        self.init(facts: facts, status: status, globalLimits: rowSettings.shareLimits,
                  queueingEnabled: rowSettings.queueingEnabled)
    }

    public var record: TorrentRecord { facts.record }
    public var tags: [String] { facts.tags }
    public var trackers: [String] { facts.trackers }
    public var webSeeds: [String] { facts.webSeeds }
    /// How its announces went.
    public var announce: AnnounceFlags { facts.announce }

    public var id: TorrentID { record.id }
    /// Stopped by hand, or held by the free-space guard (the `stopped` filter lists both).
    public var isStopped: Bool { record.stopped || facts.diskHold != nil }
    /// qbtd's `qbtd_reason`: why the free-space guard holds it, or the file error that put it in `error`.
    public var reason: String { nodeDown ?? facts.reason(engineError: status.error) }
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

    /// Whether any global limit is set.
    var any: Bool { ratio >= 0 || seedingTime >= 0 || inactiveSeedingTime >= 0 }

    init(_ p: PreferenceValues) {
        ratio = p[\.maxRatioEnabled] ? p[\.maxRatio] : -1
        seedingTime = p[\.maxSeedingTimeEnabled] ? p[\.maxSeedingTime] : -1
        inactiveSeedingTime = p[\.maxInactiveSeedingTimeEnabled] ? p[\.maxInactiveSeedingTime] : -1
    }
}

extension TorrentRecord {
    /// Whether the torrent has a share limit of its own (-2 follows the global ones, -1 is none).
    var hasOwnShareLimit: Bool { ratioLimit >= 0 || seedingTimeLimit >= 0 || inactiveSeedingTimeLimit >= 0 }
}

extension TorrentView {
    /// `TorrentImpl::createMagnetURI`: hashes, the name unless it is the hash, the size (5.x, with metadata),
    /// every tracker and web seed.
    public func magnetURI(withSize: Bool) -> String {
        let s = status
        var parts: [String] = []
        if !s.infoHashV1.isEmpty { parts.append("xt=urn:btih:\(s.infoHashV1)") }
        if !s.infoHashV2.isEmpty { parts.append("xt=urn:btmh:1220\(s.infoHashV2)") }
        if name != id { parts.append("dn=" + Self.percentEncoded(name)) }
        if withSize && s.hasMetadata { parts.append("xl=\(s.totalSize)") }
        parts += trackers.map { "tr=" + Self.percentEncoded($0) }
        parts += webSeeds.map { "ws=" + $0 }
        return "magnet:?" + parts.joined(separator: "&")
    }

    /// `QUrl::toPercentEncoding`: everything but unreserved characters, as UTF-8 with upper-case hex.
    public static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }
}

/// How a torrent's announces went, over its trackers' last outcomes (qBittorrent 5.2's `addAnnounceStats`): a
/// working tracker that answered with a message, a tracker that answered with a failure, and one that could not be
/// reached or failed otherwise.
public struct AnnounceFlags: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let warning = AnnounceFlags(rawValue: 1)
    public static let trackerError = AnnounceFlags(rawValue: 2)
    public static let otherError = AnnounceFlags(rawValue: 4)
}
