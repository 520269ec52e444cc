import Foundation
import Store
import Synchronization

/// What one client remembers between requests (qBittorrent keeps `sync/*` baselines per session), per session or API key.
public final class SessionMemory: Sendable {
    private let kept = Mutex<[ObjectIdentifier: any Sendable]>([:])
    public init() {}

    /// The session's memory of one kind, made on first use (`sync/*` keeps its baselines here): the kit holds it
    /// without knowing what it is.
    public func memory<T: AnyObject & Sendable>(_ kind: T.Type, _ make: () -> T) -> T {
        kept.withLock { kept in
            if let found = kept[ObjectIdentifier(kind)] as? T { return found }
            let made = make()
            kept[ObjectIdentifier(kind)] = made
            return made
        }
    }
}

/// Web sessions and the failed-login ban, per client IP, as qBittorrent keeps them. API-key callers get a
/// session per key that never expires, so their `sync/maindata` baseline survives between calls.
public actor SessionManager {
    public struct Policy: Sendable, Equatable {
        public var sessionTimeout: Duration = .seconds(3600)
        public var maxFailures = 5
        public var banDuration: Duration = .seconds(3600)
        /// 5.3's `web_ui_sessions_count_limit` (0: no limit but the built-in bound); only a manager made with
        /// `countLimited` honours it, as only 5.3 has it.
        public var countLimit = 0
        public init() {}
    }

    private struct Entry {
        var lastSeen: ContinuousClock.Instant
        let slot = SessionMemory()
    }

    private var sessions: [String: Entry] = [:]
    private var keySessions: [String: SessionMemory] = [:]
    private var failures: [String: Int] = [:]
    private var bannedUntil: [String: ContinuousClock.Instant] = [:]
    public private(set) var policy: Policy
    /// Bounds the failure and ban tables against a flood of distinct addresses (IPv6 gives an attacker plenty).
    static let maxTrackedAddresses = 10_000
    /// Bounds the live sessions: past it, a login ends the session unused the longest.
    static let maxSessions = 10_000

    let countLimited: Bool

    public init(policy: Policy = Policy(), countLimited: Bool = false) {
        self.policy = policy
        self.countLimited = countLimited
    }

    public func setPolicy(_ policy: Policy) { self.policy = policy }

    /// The session's sync slot (and the session refreshed) when `id` names a live session.
    public func touch(_ id: String?) -> SessionMemory? {
        guard let id, var entry = sessions[id] else { return nil }
        let now = ContinuousClock.now
        if policy.sessionTimeout > .zero && now - entry.lastSeen > policy.sessionTimeout {
            sessions[id] = nil
            return nil
        }
        entry.lastSeen = now
        sessions[id] = entry
        return entry.slot
    }

    public func keySession(_ keyID: String) -> SessionMemory {
        if let slot = keySessions[keyID] { return slot }
        let slot = SessionMemory()
        keySessions[keyID] = slot
        return slot
    }

    public func dropKeySession(_ keyID: String) { keySessions[keyID] = nil }

    public func isBanned(_ ip: String) -> Bool {
        guard let until = bannedUntil[ip] else { return false }
        if ContinuousClock.now >= until {
            bannedUntil[ip] = nil
            failures[ip] = nil
            return false
        }
        return true
    }

    public func recordFailure(_ ip: String) {
        if failures[ip] == nil && failures.count >= Self.maxTrackedAddresses { failures.removeAll() }
        failures[ip, default: 0] += 1
        if policy.maxFailures > 0 && failures[ip, default: 0] >= policy.maxFailures {
            if bannedUntil[ip] == nil && bannedUntil.count >= Self.maxTrackedAddresses {
                // Expired bans go first; if every ban is live, the one ending soonest makes room.
                let now = ContinuousClock.now
                bannedUntil = bannedUntil.filter { $0.value > now }
                if bannedUntil.count >= Self.maxTrackedAddresses, let soonest = bannedUntil.min(by: { $0.value < $1.value }) {
                    bannedUntil[soonest.key] = nil
                }
            }
            bannedUntil[ip] = ContinuousClock.now + policy.banDuration
        }
    }

    /// How many addresses the failure and ban tables hold (for tests).
    var trackedAddresses: (failures: Int, bans: Int) { (failures.count, bannedUntil.count) }
    var sessionCount: Int { sessions.count }

    /// A new session for a successful login; expired ones are purged here, as qBittorrent does.
    public func open(for ip: String) -> String {
        failures[ip] = nil
        let now = ContinuousClock.now
        if policy.sessionTimeout > .zero { sessions = sessions.filter { now - $0.value.lastSeen <= policy.sessionTimeout } }
        let limit = countLimited && policy.countLimit > 0 ? min(policy.countLimit, Self.maxSessions) : Self.maxSessions
        while sessions.count >= limit, let oldest = sessions.min(by: { $0.value.lastSeen < $1.value.lastSeen }) {
            sessions[oldest.key] = nil
        }
        let id = Self.newID()
        sessions[id] = Entry(lastSeen: now)
        return id
    }

    public func close(_ id: String) { sessions[id] = nil }

    /// 32 random letters and digits, like qBittorrent's SID: no `/`, `+` or `=`, which cookie jars (aiohttp's, Python's
    /// http.cookies) quote when they send the cookie back.
    static func newID() -> String { Digest.randomString(32) }
}
