/// A change of preferences on its way in, before anything is stored: what `beforeChange` handlers see. A component
/// that keeps its keys elsewhere takes them out (credentials, music folders); one that must accept a change first
/// leaves the keys out when it refuses it (HTTPS), and they keep their values.
public struct PreferenceRequest: Sendable {
    /// What is asked, key → value as the client sent it (4.x spellings translated), less what handlers took or left
    /// out.
    public private(set) var changes: [String: JSONValue]
    /// The values before the change.
    public let current: PreferenceValues

    init(changes: [String: JSONValue], current: PreferenceValues) {
        self.changes = changes
        self.current = current
    }

    /// Whether the request names any of the keys.
    public func asks(_ paths: PartialKeyPath<PreferenceKeys>...) -> Bool {
        !PreferenceKeys.names(paths).isDisjoint(with: changes.keys)
    }

    /// What the request asks for the key, as sent.
    public func asked<V>(_ path: KeyPath<PreferenceKeys, Preference<V>>) -> JSONValue? { changes[PreferenceKeys.name(path)] }

    /// The value the key will have once the change is stored: the asked value when `ServerSettings.update` would take
    /// it (a value of the key's type; numbers convert), else the current one.
    public func proposed<V>(_ path: KeyPath<PreferenceKeys, Preference<V>>) -> V {
        let key = PreferenceKeys.name(path)
        if let raw = changes[key], let now = current.all[key], let value = ServerSettings.coerce(raw, like: now),
           let typed = V(preference: value) {
            return typed
        }
        return current[path]
    }

    /// Takes the key out of the change (its component stores it) and returns what was asked.
    public mutating func take<V>(_ path: KeyPath<PreferenceKeys, Preference<V>>) -> JSONValue? {
        changes.removeValue(forKey: PreferenceKeys.name(path))
    }

    /// Leaves the keys out of the change: they keep their values.
    public mutating func leaveOut(_ paths: PartialKeyPath<PreferenceKeys>...) {
        for key in PreferenceKeys.names(paths) { changes[key] = nil }
    }
}

/// What one `ServerSettings.update` did, as `onChange` handlers see it once the values are stored (they read the
/// values themselves, from the settings).
public struct PreferenceChange: Sendable {
    /// The keys whose values changed.
    public let changedKeys: Set<String>
    /// The keys the request named, changed or not.
    public let askedKeys: Set<String>

    public init(changedKeys: Set<String>, askedKeys: Set<String>) {
        self.changedKeys = changedKeys
        self.askedKeys = askedKeys.union(changedKeys)
    }

    /// Whether any of the keys changed.
    public func changed(_ paths: PartialKeyPath<PreferenceKeys>...) -> Bool { changed(anyOf: PreferenceKeys.names(paths)) }

    public func changed(anyOf keys: Set<String>) -> Bool { !changedKeys.isDisjoint(with: keys) }

    /// Whether the request named any of the keys.
    public func asked(_ paths: PartialKeyPath<PreferenceKeys>...) -> Bool { !askedKeys.isDisjoint(with: PreferenceKeys.names(paths)) }
}
