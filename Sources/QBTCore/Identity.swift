/// The qBittorrent release qbtd presents itself as: its compatibility profile. It decides what qbtd *reports*
/// (versions, state names, the login answer and cookie, empty answers, fields a release did not have);
/// requests in either dialect are accepted whatever it says.
public struct Identity: Sendable, Equatable {
    /// Ordered by release: a behaviour a release added holds for every later profile (`profile >= .v5_2`).
    public enum Profile: String, Sendable, CaseIterable, Comparable {
        case v4_6 = "4.6", v5_1 = "5.1", v5_2 = "5.2", v5_3 = "5.3"

        public static func < (a: Profile, b: Profile) -> Bool {
            allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
        }
    }

    public var profile: Profile
    public var appVersion: String
    public var webAPIVersion: String
    /// This process's name as a node of a cluster (`--node`); nil: not a cluster. Torrents then carry qbtd's `node`.
    public var node: String?

    /// A node's name as `--node` takes it: 1-63 letters, digits, -, _ and . (ASCII).
    public static func isNodeName(_ name: String) -> Bool {
        (1...63).contains(name.count) && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
    }

    public static let qBittorrent4_6 = Identity(profile: .v4_6, appVersion: "v4.6.7", webAPIVersion: "2.9.3")
    public static let qBittorrent5_1 = Identity(profile: .v5_1, appVersion: "v5.1.0", webAPIVersion: "2.11.4")
    public static let qBittorrent5_2 = Identity(profile: .v5_2, appVersion: "v5.2.3", webAPIVersion: "2.15.1")
    public static let qBittorrent5_3 = Identity(profile: .v5_3, appVersion: "v5.3.0", webAPIVersion: "2.16.2")

    public init(profile: Profile, appVersion: String, webAPIVersion: String) {
        self.profile = profile
        self.appVersion = appVersion
        self.webAPIVersion = webAPIVersion
    }

    public init(profile: Profile) {
        switch profile {
        case .v4_6: self = .qBittorrent4_6
        case .v5_1: self = .qBittorrent5_1
        case .v5_2: self = .qBittorrent5_2
        case .v5_3: self = .qBittorrent5_3
        }
    }

    /// 4.x names states `pausedDL`/`pausedUP`; 5.x says `stoppedDL`/`stoppedUP`.
    public var legacyStateNames: Bool { profile == .v4_6 }
    /// 5.0 added `root_path`, `popularity`, `reannounce`, `comment`, `private`, `has_metadata` to torrents.
    public var hasV5TorrentFields: Bool { profile != .v4_6 }
    /// 5.2: login answers 204/401 and the cookie is `QBT_SID_<port>`.
    public var modernAuth: Bool { profile >= .v5_2 }
    /// 5.2: the void actions that set no result (tracker edits, `setTags`, `setComment`, `deleteAPIKey`,
    /// `clientdata/store`) answer 204; every other void action still answers 200 with an empty body.
    public var voidActionsNoContent: Bool { profile >= .v5_2 }
    /// 5.2: `addTrackers`/`removeTrackers` take a `|` list or `all` (unknown torrents skipped), and `editTracker`
    /// takes a `tier` with `newUrl` optional.
    public var trackerEditsTakeLists: Bool { profile >= .v5_2 }

    public func cookieName(port: Int) -> String { modernAuth ? "QBT_SID_\(port)" : "SID" }

    public func stateName(_ state: QBTState) -> String { legacyStateNames ? state.legacyName : state.rawValue }
}
