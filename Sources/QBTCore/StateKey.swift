/// qbtd's own state kept beside the preferences in the store (`qbtd_…`): never reported by `app/preferences` nor
/// set by `app/setPreferences`.
public struct StateKey: Sendable, Hashable {
    public let name: String

    init(_ suffix: String) { name = "qbtd_" + suffix }

    /// `app/setCookies`' list.
    public static let cookies = StateKey("cookies")
    /// 5.2's `clientdata/*` object.
    public static let clientData = StateKey("clientdata")
    /// The `music_dirs` preference's folders (the music library reports them).
    public static let musicDirectories = StateKey("music_dirs")
    /// All-time transfer totals, in bytes.
    public static let allTimeDownload = StateKey("alltime_dl")
    public static let allTimeUpload = StateKey("alltime_ul")
    /// Whether the alternative speed limits are on.
    public static let alternativeSpeed = StateKey("alternative_speed_enabled")
}
