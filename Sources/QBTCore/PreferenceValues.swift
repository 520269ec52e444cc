/// The preferences at one moment: what `app/preferences` starts from, read by typed key without an actor hop.
/// `ServerSettings` replaces its snapshot whole after every write, so a reader that takes one (`settings.current`)
/// sees one consistent set however many keys it reads.
public struct PreferenceValues: Sendable {
    /// Every stored preference's value: the catalogue's defaults overlaid with what was stored (qbtd's own state
    /// and the password left out), by key.
    public let all: [String: JSONValue]
    /// Whether the alternative speed limits are in force (qbtd keeps the mode beside the preferences, as qBittorrent
    /// does).
    public let alternativeSpeed: Bool

    /// `all` as given; a key it lacks reads as its catalogue default (tests build policies from a few keys).
    public init(_ all: [String: JSONValue], alternativeSpeed: Bool = false) {
        self.all = all
        self.alternativeSpeed = alternativeSpeed
    }

    public subscript<V>(_ path: KeyPath<PreferenceKeys, Preference<V>>) -> V { self[PreferenceKeys.all[keyPath: path]] }

    public subscript<V>(_ preference: Preference<V>) -> V {
        if let json = all[preference.key], let value = V(preference: json) { return value }
        if case .value(let json)? = PreferenceCatalogue.byKey[preference.key]?.defaultValue, let value = V(preference: json) {
            return value
        }
        return V.zero
    }
}

extension Dictionary where Key == String, Value == JSONValue {
    /// A preference in a dictionary of changes or of reported values, by typed key.
    public subscript<V>(_ path: KeyPath<PreferenceKeys, Preference<V>>) -> V? {
        get { self[PreferenceKeys.name(path)].flatMap { V(preference: $0) } }
        set { self[PreferenceKeys.name(path)] = newValue?.json }
    }
}
