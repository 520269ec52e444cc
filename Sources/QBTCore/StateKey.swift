/// qbtd's own state kept beside the preferences in the store (`qbtd_…`): never reported by `app/preferences` nor
/// set by `app/setPreferences`.
public struct StateKey: Sendable, Hashable {
    public let name: String
    /// Each node of a cluster keeps its own (stored as `name@node` in the shared catalogue): what only this node
    /// counts, such as its transfer totals, which two nodes writing one key would overwrite in turn.
    public let perNode: Bool

    init(_ suffix: String, perNode: Bool = false) {
        name = "qbtd_" + suffix
        self.perNode = perNode
    }

    /// `app/setCookies`' list.
    public static let cookies = StateKey("cookies")
    /// 5.2's `clientdata/*` object.
    public static let clientData = StateKey("clientdata")
    /// The `music_dirs` preference's folders (the music library reports them).
    public static let musicDirectories = StateKey("music_dirs", perNode: true)
    /// All-time transfer totals, in bytes (a node's own in a cluster).
    public static let allTimeDownload = StateKey("alltime_dl", perNode: true)
    public static let allTimeUpload = StateKey("alltime_ul", perNode: true)
    /// Whether the alternative speed limits are on.
    public static let alternativeSpeed = StateKey("alternative_speed_enabled")
}
