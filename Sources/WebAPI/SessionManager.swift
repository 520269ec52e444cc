import Foundation
import Store

/// Web sessions and the failed-login ban, per client IP, as qBittorrent keeps them.
public actor SessionManager {
    public struct Policy: Sendable {
        public var sessionTimeout: Duration = .seconds(3600)
        public var maxFailures = 5
        public var banDuration: Duration = .seconds(3600)
        public init() {}
    }

    private var sessions: [String: ContinuousClock.Instant] = [:]
    private var failures: [String: Int] = [:]
    private var bannedUntil: [String: ContinuousClock.Instant] = [:]
    public var policy: Policy

    public init(policy: Policy = Policy()) { self.policy = policy }

    /// True (and the session refreshed) when `id` names a live session.
    public func touch(_ id: String?) -> Bool {
        guard let id, let seen = sessions[id] else { return false }
        let now = ContinuousClock.now
        if policy.sessionTimeout > .zero && now - seen > policy.sessionTimeout {
            sessions[id] = nil
            return false
        }
        sessions[id] = now
        return true
    }

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
        failures[ip, default: 0] += 1
        if policy.maxFailures > 0 && failures[ip, default: 0] >= policy.maxFailures {
            bannedUntil[ip] = ContinuousClock.now + policy.banDuration
        }
    }

    /// A new session for a successful login; expired ones are purged here, as qBittorrent does.
    public func open(for ip: String) -> String {
        failures[ip] = nil
        let now = ContinuousClock.now
        if policy.sessionTimeout > .zero { sessions = sessions.filter { now - $0.value <= policy.sessionTimeout } }
        let id = Self.newID()
        sessions[id] = now
        return id
    }

    public func close(_ id: String) { sessions[id] = nil }

    /// Base64 of 24 random bytes: 32 characters, like qBittorrent's SID.
    static func newID() -> String {
        var bytes = [UInt8](repeating: 0, count: 24)
        for i in bytes.indices { bytes[i] = UInt8.random(in: .min ... .max) }
        return Data(bytes).base64EncodedString()
    }
}
