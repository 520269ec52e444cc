import Foundation
import Logging
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
/// session per key that never expires, so their `sync/maindata` baseline survives between calls. In a cluster
/// (`share`), a login's session is every node's: a session id this node does not know is looked up in the shared
/// sessions, a logout ends it everywhere, and each node tells the others it saw a session at most once a minute.
/// The sessions' memories (`sync/*` baselines) and the failed-login bans stay each node's own.
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
        /// When the shared sessions last heard this node saw it (nil: a session of this node's alone).
        var sharedAt: ContinuousClock.Instant?
        /// Its id's digest, as the shared sessions know it.
        var digest: String?
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
    /// A cluster's shared sessions (nil: a single server).
    private var shared: (any SharedSessions)?
    private var logger = Logger(label: "qbtd")
    /// How often a node tells the shared sessions that one of them is still in use here.
    static let shareEvery: Duration = .seconds(60)

    public init(policy: Policy = Policy(), countLimited: Bool = false) {
        self.policy = policy
        self.countLimited = countLimited
    }

    public func setPolicy(_ policy: Policy) { self.policy = policy }

    /// Logins share their sessions with a cluster's other nodes from now on.
    public func share(_ shared: any SharedSessions, logger: Logger) {
        self.shared = shared
        self.logger = logger
    }

    /// One exchange with the shared sessions; a failure is logged, saying what it leaves (nil then).
    private func sharing<T>(_ what: String, _ body: (any SharedSessions) async throws -> T) async -> T? {
        guard let shared else { return nil }
        do { return try await body(shared) } catch {
            logger.warning("the cluster's shared sessions did not take \(what): \(error)")
            return nil
        }
    }

    /// Until cancelled: sessions other nodes' logouts ended end here too.
    public func followClosures() async {
        guard let shared else { return }
        for await digest in shared.sessionClosures() {
            if digest.isEmpty {  // notifications were lost: every shared session is asked again when next used
                sessions = sessions.filter { $0.value.digest == nil }
            } else if let id = sessions.first(where: { $0.value.digest == digest })?.key {
                sessions[id] = nil
            }
        }
    }

    /// The session's sync slot (and the session refreshed) when `id` names a live session: this node's, or in a
    /// cluster one a login on another node opened.
    public func touch(_ id: String?) async -> SessionMemory? {
        guard let id else { return nil }
        let now = ContinuousClock.now
        let timeout = policy.sessionTimeout
        guard var entry = sessions[id] else { return await adopt(id, now: now) }
        if timeout > .zero && now - entry.lastSeen > timeout {
            sessions[id] = nil
            return entry.digest == nil ? nil : await adopt(id, now: now)  // it may have been used on another node since
        }
        entry.lastSeen = now
        if let shared, let digest = entry.digest, let sharedAt = entry.sharedAt, now - sharedAt >= Self.shareEvery {
            entry.sharedAt = now
            sessions[id] = entry
            // Ended elsewhere (a logout whose notification was lost, or the cluster's timeout): ended here too.
            if await sharing("a session still in use (it stays this node's until the next try)", {
                try await $0.touchSession(digest, timeout: timeout.components.seconds)
            }) == false {
                sessions[id] = nil
                return nil
            }
            return sessions[id]?.slot
        }
        sessions[id] = entry
        return entry.slot
    }

    /// A session another node's login opened (or this node's, used elsewhere since it lapsed here), if the shared
    /// sessions know it as live.
    private func adopt(_ id: String, now: ContinuousClock.Instant) async -> SessionMemory? {
        guard shared != nil, id.count == 32, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
        let digest = Digest.sha256Hex(id)
        let timeout = policy.sessionTimeout.components.seconds
        guard await sharing("a look-up of another node's session (refused here)", {
            try await $0.touchSession(digest, timeout: timeout)
        }) == true else { return nil }
        if let entry = sessions[id] { return entry.slot }  // adopted meanwhile
        let entry = Entry(lastSeen: now, sharedAt: now, digest: digest)
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

    /// A new session for a successful login (in a cluster, every node's: `shared`); expired ones are purged here, as
    /// qBittorrent does.
    public func open(for ip: String, shared share: Bool = false) async -> String {
        failures[ip] = nil
        let now = ContinuousClock.now
        if policy.sessionTimeout > .zero { sessions = sessions.filter { now - $0.value.lastSeen <= policy.sessionTimeout } }
        let limit = countLimited && policy.countLimit > 0 ? min(policy.countLimit, Self.maxSessions) : Self.maxSessions
        while sessions.count >= limit, let oldest = sessions.min(by: { $0.value.lastSeen < $1.value.lastSeen }) {
            sessions[oldest.key] = nil
        }
        let id = Self.newID()
        var entry = Entry(lastSeen: now)
        if share {
            let digest = Digest.sha256Hex(id)
            // Not shared (the database refused it): still this node's session.
            if await sharing("a login (it opens this node only)", { try await $0.openSession(digest) }) != nil {
                (entry.sharedAt, entry.digest) = (now, digest)
            }
        }
        sessions[id] = entry
        return id
    }

    public func close(_ id: String) async {
        // A session opened elsewhere and never used here is closed there too.
        let digest = sessions.removeValue(forKey: id).map(\.digest) ?? Digest.sha256Hex(id)
        guard let digest else { return }
        _ = await sharing("a logout (the session may stay open on other nodes until it times out)", {
            try await $0.closeSession(digest)
        })
    }

    /// 32 random letters and digits, like qBittorrent's SID: no `/`, `+` or `=`, which cookie jars (aiohttp's, Python's
    /// http.cookies) quote when they send the cookie back.
    static func newID() -> String { Digest.randomString(32) }
}
