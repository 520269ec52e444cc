import Foundation
import Store
import Synchronization
import SystemKit

/// The server's preferences: qBittorrent's defaults overlaid with what `app/setPreferences` stored, and qbtd's own
/// state kept beside them. Reads are synchronous, by typed key, from a snapshot replaced after every write
/// (`settings[\.dht]`, `settings.current`); writes go through the actor, and `update` runs the handlers the
/// components registered for what they apply (`beforeChange`, `onChange`) before it returns.
public actor ServerSettings {
    public nonisolated let paths: ServerPaths
    public nonisolated let overrides: EngineOverrides
    /// This process's name as a node of a cluster (nil: not a cluster): the state keys it keeps apart are stored
    /// under it.
    public nonisolated let node: String?
    private let store: any Store
    private nonisolated let defaults: [String: JSONValue]
    private var stored: [String: JSONValue]
    private nonisolated let snapshot: Mutex<PreferenceValues>
    /// In a cluster, this node's part of the global limits (`ClusterLimits`); all of them otherwise.
    private nonisolated let clusterPart = Mutex(NodeLimits.whole)
    private nonisolated let handlers = PreferenceHandlers()

    /// Keys that are never echoed back nor set as plain preferences: the password and qbtd's own state.
    static func isPrivate(_ key: String) -> Bool { key == Credentials.passwordKey || key.hasPrefix("qbtd_") }

    public init(store: any Store, paths: ServerPaths, overrides: EngineOverrides = EngineOverrides(),
                node: String? = nil) async throws {
        self.store = store
        self.paths = paths
        self.overrides = overrides
        self.node = node
        let defaults = PreferenceCatalogue.defaults(paths: paths)
        let stored = try await PreferenceSettings.load(from: store)
        self.defaults = defaults
        self.stored = stored
        snapshot = Mutex(Self.values(defaults: defaults, stored: stored, confined: paths.confinement != nil))
    }

    // MARK: reading

    /// The preferences now, to read several keys from one consistent set.
    public nonisolated var current: PreferenceValues { snapshot.withLock { $0 } }

    /// One preference now.
    public nonisolated subscript<V>(_ path: KeyPath<PreferenceKeys, Preference<V>>) -> V { current[path] }

    /// Defaults overlaid with stored values, secrets left out. A fixed key reports what qbtd does, whatever an
    /// older qbtd stored for it.
    public nonisolated var values: [String: JSONValue] { current.all }

    public nonisolated var alternativeSpeed: Bool { current.alternativeSpeed }

    /// The default save path (inside the allowed folders when paths are confined).
    public nonisolated var defaultSavePath: String { Self.defaultSavePath(current, paths) }

    /// Where incomplete torrents download, when the temp path is on.
    public nonisolated var tempPath: String? {
        let p = current
        guard p[\.tempPathEnabled] else { return nil }
        return try? paths.savePath(p[\.tempPath], relativeTo: Self.defaultSavePath(p, paths))
    }

    static func defaultSavePath(_ p: PreferenceValues, _ paths: ServerPaths) -> String {
        (try? paths.savePath(p[\.savePath])) ?? paths.downloadRoot
    }

    private static func values(defaults: [String: JSONValue], stored: [String: JSONValue], confined: Bool) -> PreferenceValues {
        var out = defaults
        for (key, value) in stored where !isPrivate(key) && takesStoredValue(key, confined: confined) { out[key] = value }
        return PreferenceValues(out, alternativeSpeed: stored[StateKey.alternativeSpeed.name]?.boolValue ?? false)
    }

    private func publish() {
        let values = Self.values(defaults: defaults, stored: stored, confined: paths.confinement != nil)
        snapshot.withLock { $0 = values }
    }

    /// Fixed keys report what qbtd does; so do the external programs while paths are confined (`--allowed-paths`
    /// is for clients not fully trusted, and a program runs anything).
    nonisolated func takesStoredValue(_ key: String) -> Bool { Self.takesStoredValue(key, confined: paths.confinement != nil) }

    private static func takesStoredValue(_ key: String, confined: Bool) -> Bool {
        (PreferenceCatalogue.byKey[key]?.acceptsChanges ?? true) && !(confined && programKeys.contains(key))
    }

    static let programKeys = PreferenceKeys.names(
        \.autorunEnabled, \.autorunProgram, \.autorunOnTorrentAddedEnabled, \.autorunOnTorrentAddedProgram)
    static let confinedProgramsReason = "external programs are off while --allowed-paths confines what clients may name"

    /// The fixed keys `changes` asks to change, with the reason each stays: `app/setPreferences` logs them (clients
    /// that send the whole form back send the same values, which are no change).
    public nonisolated func refusedChanges(_ changes: [String: JSONValue]) -> [(key: String, reason: String)] {
        changes.compactMap { key, raw in
            guard let entry = PreferenceCatalogue.byKey[key], !takesStoredValue(key), let current = defaults[key],
                  let value = Self.coerce(raw, like: current), value != current else { return nil }
            return (key, entry.reason ?? Self.confinedProgramsReason)
        }.sorted { $0.key < $1.key }
    }

    // MARK: handlers

    /// Registers what a component does with a change before it is stored (it runs when the request names one of
    /// `keys`, by default the applier's): take keys it keeps itself, or leave out a change it refuses.
    @discardableResult
    public nonisolated func beforeChange(_ applier: PreferenceEntry.Applier, keys: Set<String>? = nil,
                                         _ handler: @escaping @Sendable (inout PreferenceRequest) async throws -> Void)
        -> PreferenceSubscription {
        handlers.before(applier, keys: keys ?? PreferenceCatalogue.keys(appliedBy: [applier]), handler)
    }

    /// Registers how a component applies a stored change of `keys` (by default the applier's).
    @discardableResult
    public nonisolated func onChange(_ applier: PreferenceEntry.Applier, keys: Set<String>? = nil,
                                     when trigger: PreferenceTrigger = .changed,
                                     _ handler: @escaping @Sendable (PreferenceChange) async throws -> Void)
        -> PreferenceSubscription {
        handlers.after(applier, keys: keys ?? PreferenceCatalogue.keys(appliedBy: [applier]), when: trigger, handler)
    }

    // MARK: writing

    /// Checks, stores and applies changes (`app/setPreferences`): unknown keys and values of the wrong type are
    /// ignored, as qBittorrent ignores them; paths must stay inside the allowed folders (when confined). The
    /// `beforeChange` handlers run first, then the store, then the `onChange` handlers; when it returns, every
    /// change is applied. Returns the keys that changed.
    @discardableResult
    public func update(_ changes: [String: JSONValue]) async throws -> Set<String> {
        var request = PreferenceRequest(changes: Self.translated(changes), current: current)
        try await handlers.runBefore(&request)
        let now = current.all
        var accepted: [String: JSONValue] = [:]
        for (key, raw) in request.changes {
            guard let template = defaults[key], takesStoredValue(key), let value = Self.coerce(raw, like: template)
            else { continue }
            if key == Self.scanDirsKey {  // only what a folder watch can use, in the form app/preferences reports
                let normalized = WatchedFolder.json(WatchedFolder.list(value, paths: paths).folders)
                if now[key] != normalized { accepted[key] = normalized }
                continue
            }
            if Self.pathKeys.contains(key) {
                guard let path = value.stringValue, let resolved = try? paths.savePath(path) else { continue }
                // The same path again is no change (qBittorrent's setSavePath returns early): the WebUI sends the whole
                // form on every save, and automatic torrents must not be switched to manual or moved for it.
                if now[key] != .string(resolved) { accepted[key] = .string(resolved) }
                continue
            }
            if now[key] != value { accepted[key] = value }
        }
        if !accepted.isEmpty {
            try await store.setPreferences(accepted.mapValues { $0 as any Encodable & Sendable })
            for (key, value) in accepted { stored[key] = value }
            publish()
        }
        let change = PreferenceChange(changedKeys: Set(accepted.keys), askedKeys: Set(request.changes.keys))
        try await handlers.runAfter(change)
        return change.changedKeys
    }

    /// Another node of the cluster changed preferences in the shared store: the values that differ from this node's are
    /// taken and applied as if set here (that node checked them). The `beforeChange` handlers see them first, as they
    /// see a change asked here, so what acts before a change is stored (HTTPS switching its listener) acts on every
    /// node; a key one of them leaves out is one this node cannot apply (a certificate that is not on this machine), and
    /// it keeps its value here until the next change. The login is not among them (`Credentials.reload` follows it).
    public func adoptStored() async throws -> (taken: Set<String>, leftOut: Set<String>) {
        let before = stored
        let now = try await PreferenceSettings.load(from: store)
        // A key this node changed while the store was read keeps its new value (its own write is the newer).
        var adopted = now.filter { key, value in stored[key] != value && stored[key] == before[key] }
        guard !adopted.isEmpty else { return ([], []) }
        let checked = adopted.filter { key, _ in !Self.isPrivate(key) && key != Credentials.usernameKey }
        var request = PreferenceRequest(changes: checked, current: current)
        try await handlers.runBefore(&request)
        let leftOut = Set(checked.keys).subtracting(request.changes.keys)
        for key in leftOut { adopted[key] = nil }
        for (key, value) in adopted { stored[key] = value }
        guard !adopted.isEmpty else { return ([], leftOut) }
        publish()
        let taken = Set(adopted.keys)
        try await handlers.runAfter(PreferenceChange(changedKeys: taken, askedKeys: taken))
        return (taken, leftOut)
    }

    static let scanDirsKey = PreferenceKeys.name(\.scanDirs)
    static let pathKeys = PreferenceKeys.names(\.savePath, \.tempPath)

    /// In a cluster, this node's part of the global limits.
    public nonisolated var clusterLimits: NodeLimits { clusterPart.withLock { $0 } }

    /// Sets this node's part of the global limits; true when it changed (the engine's limits are then applied again).
    public nonisolated func setClusterLimits(_ part: NodeLimits) -> Bool {
        var new = part
        new.download = min(1, max(0, part.download))
        new.upload = min(1, max(0, part.upload))
        return clusterPart.withLock { current in
            guard new != current else { return false }
            current = new
            return true
        }
    }

    /// qbtd's own state (`qbtd_…`), as stored.
    public func state(_ key: StateKey) -> JSONValue? { stored[storedName(key)] }

    /// Where a state key is stored: its name, and this node's for a key each node keeps apart.
    nonisolated func storedName(_ key: StateKey) -> String {
        guard key.perNode, let node else { return key.name }
        return key.name + "@" + node
    }

    /// Stores qbtd's own state (e.g. `app/setCookies`); no handler hears of it.
    public func setState(_ key: StateKey, _ value: JSONValue) async throws {
        let name = storedName(key)
        try await store.setPreferences([name: value])
        stored[name] = value
        publish()
    }

    public func setAlternativeSpeed(_ on: Bool) async throws {
        try await setState(.alternativeSpeed, .bool(on))
    }

    // MARK: what clients send

    /// The request in the keys qbtd stores: a 4.x spelling of a key (the catalogue's aliases, e.g.
    /// `start_paused_enabled`) sets the 5.x key unless that is given too, and 4.x's proxy keys are translated.
    static func translated(_ changes: [String: JSONValue]) -> [String: JSONValue] {
        var changes = changes
        for entry in PreferenceCatalogue.entries {
            guard let alias = entry.alias, let value = changes.removeValue(forKey: entry.key) else { continue }
            if changes[alias] == nil { changes[alias] = value }
        }
        translate4x(&changes)
        return changes
    }

    /// qBittorrent 4.x's proxy keys in 5.x terms: `proxy_type` 0…5 (None, HTTP, SOCKS5, HTTP with a password,
    /// SOCKS5 with a password, SOCKS4; -1 also None), and `proxy_torrents_only` (the proxy for nothing but torrents).
    static func translate4x(_ changes: inout [String: JSONValue]) {
        let type = PreferenceKeys.name(\.proxyType), auth = PreferenceKeys.name(\.proxyAuthEnabled)
        if case .int(let n)? = changes[type] {
            let (name, withAuth): (String, Bool?) = switch n {
            case 1: ("HTTP", false)
            case 2: ("SOCKS5", false)
            case 3: ("HTTP", true)
            case 4: ("SOCKS5", true)
            case 5: ("SOCKS4", false)
            default: ("None", nil)
            }
            changes[type] = .string(name)
            if let withAuth, changes[auth] == nil { changes[auth] = .bool(withAuth) }
        }
        if let only = changes.removeValue(forKey: PreferenceKeys.name(\.proxyTorrentsOnly))?.boolValue {
            let bittorrent = PreferenceKeys.name(\.proxyBitTorrent), rss = PreferenceKeys.name(\.proxyRSS)
            let misc = PreferenceKeys.name(\.proxyMisc)
            changes[bittorrent] = changes[bittorrent] ?? .bool(true)
            changes[rss] = changes[rss] ?? .bool(!only)
            changes[misc] = changes[misc] ?? .bool(!only)
        }
    }

    /// A value of the default's type, or nil; numbers convert between int and double as JSON allows. Integers are
    /// kept to 32 bits, as qBittorrent keeps them (so no arithmetic on a preference can overflow).
    public static func coerce(_ value: JSONValue, like template: JSONValue) -> JSONValue? {
        switch (template, value) {
        case (.bool, .bool), (.string, .string), (.object, .object), (.array, .array): value
        case (.bool, .int(let n)): .bool(n != 0)  // qBittorrent's toBool takes 0 and 1
        case (.int, _): value.intValue.map { .int(min(max($0, Int64(Int32.min)), Int64(Int32.max))) }
        case (.double, _): value.doubleValue.map { .double($0) }
        default: nil
        }
    }
}
