import Synchronization

/// When an `onChange` handler runs.
public enum PreferenceTrigger: Sendable {
    /// When one of its keys changed.
    case changed
    /// When the request named one of its keys, even with the value it had (qBittorrent re-reads some settings on
    /// every apply: the WebUI's custom headers are checked, and reported, each time).
    case asked
}

/// A registered handler; `cancel()` unregisters it (a service that shuts down before the settings do).
public struct PreferenceSubscription: Sendable {
    let handlers: PreferenceHandlers
    let id: Int

    public func cancel() { handlers.remove(id) }
}

/// The components that apply preferences, each registered for its `PreferenceEntry.Applier` and the keys it
/// applies. `ServerSettings.update` awaits them, so a change is applied when it returns (as `app/setPreferences`
/// answers only then): the `beforeChange` handlers before anything is stored, the `onChange` handlers after, each
/// phase in the order of `Applier`'s cases (then of registration). A handler that throws stops the change there and
/// its error is the caller's.
final class PreferenceHandlers: Sendable {
    typealias Before = @Sendable (inout PreferenceRequest) async throws -> Void
    typealias After = @Sendable (PreferenceChange) async throws -> Void

    private enum Phase {
        case before(Before)
        case after(After, PreferenceTrigger)
    }

    private struct Entry {
        let id: Int
        let rank: Int
        let keys: Set<String>
        let phase: Phase
    }

    private let state = Mutex<(next: Int, entries: [Entry])>((0, []))

    private static let ranks: [PreferenceEntry.Applier: Int] =
        Dictionary(uniqueKeysWithValues: PreferenceEntry.Applier.allCases.enumerated().map { ($1, $0) })

    func before(_ applier: PreferenceEntry.Applier, keys: Set<String>, _ handler: @escaping Before) -> PreferenceSubscription {
        add(applier, keys, .before(handler))
    }

    func after(_ applier: PreferenceEntry.Applier, keys: Set<String>, when trigger: PreferenceTrigger,
               _ handler: @escaping After) -> PreferenceSubscription {
        add(applier, keys, .after(handler, trigger))
    }

    private func add(_ applier: PreferenceEntry.Applier, _ keys: Set<String>, _ phase: Phase) -> PreferenceSubscription {
        let id = state.withLock { state in
            let id = state.next
            state.next += 1
            state.entries.append(Entry(id: id, rank: Self.ranks[applier]!, keys: keys, phase: phase))
            state.entries.sort { ($0.rank, $0.id) < ($1.rank, $1.id) }
            return id
        }
        return PreferenceSubscription(handlers: self, id: id)
    }

    func remove(_ id: Int) { state.withLock { $0.entries.removeAll { $0.id == id } } }

    private var entries: [Entry] { state.withLock { $0.entries } }

    /// Each handler whose keys the request (as earlier handlers left it) still names.
    func runBefore(_ request: inout PreferenceRequest) async throws {
        for entry in entries {
            guard case .before(let handler) = entry.phase, !entry.keys.isDisjoint(with: request.changes.keys) else { continue }
            try await handler(&request)
        }
    }

    func runAfter(_ change: PreferenceChange) async throws {
        for entry in entries {
            guard case .after(let handler, let trigger) = entry.phase else { continue }
            let keys = trigger == .changed ? change.changedKeys : change.askedKeys
            guard !entry.keys.isDisjoint(with: keys) else { continue }
            try await handler(change)
        }
    }
}
