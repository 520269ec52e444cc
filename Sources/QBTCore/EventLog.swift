import Foundation
import Logging
import Synchronization

/// qBittorrent's execution log and peer log (`log/main`, `log/peers`): bounded, in memory, with ids that only grow.
public final class EventLog: Sendable {
    public enum Kind: Int, Sendable { case normal = 1, info = 2, warning = 4, critical = 8 }

    public struct Message: Sendable, Equatable {
        public var id: Int
        public var timestamp: Int64  // seconds since the epoch (Logger uses currentSecsSinceEpoch)
        public var kind: Kind
        public var message: String
    }

    public struct Peer: Sendable, Equatable {
        public var id: Int
        public var timestamp: Int64
        public var ip: String
        public var blocked: Bool
        public var reason: String
    }

    private struct State {
        var messages: [Message] = []
        var peers: [Peer] = []
        var nextMessage = 0
        var nextPeer = 0
    }

    private let state = Mutex(State())
    private let capacity: Int

    public init(capacity: Int = 20_000) { self.capacity = capacity }

    static var now: Int64 { Int64(Date().timeIntervalSince1970) }

    public func add(_ message: String, kind: Kind = .normal) {
        state.withLock { s in
            s.messages.append(Message(id: s.nextMessage, timestamp: Self.now, kind: kind, message: message))
            s.nextMessage += 1
            if s.messages.count > capacity { s.messages.removeFirst(s.messages.count - capacity) }
        }
    }

    public func addPeer(ip: String, blocked: Bool, reason: String) {
        state.withLock { s in
            s.peers.append(Peer(id: s.nextPeer, timestamp: Self.now, ip: ip, blocked: blocked, reason: reason))
            s.nextPeer += 1
            if s.peers.count > capacity { s.peers.removeFirst(s.peers.count - capacity) }
        }
    }

    /// Messages after `lastKnownID` whose kind is in `kinds`.
    public func messages(after lastKnownID: Int, kinds: Set<Kind>) -> [Message] {
        state.withLock { s in s.messages.filter { $0.id > lastKnownID && kinds.contains($0.kind) } }
    }

    public func peers(after lastKnownID: Int) -> [Peer] {
        state.withLock { s in s.peers.filter { $0.id > lastKnownID } }
    }
}

/// A swift-log handler that also records each message (info and above) in the execution log.
public struct EventLogHandler: LogHandler {
    private var inner: any LogHandler
    private let log: EventLog

    public init(wrapping inner: any LogHandler, log: EventLog) {
        self.inner = inner
        self.log = log
    }

    public var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    public var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    public func log(event: LogEvent) {
        inner.log(event: event)
        let kind: EventLog.Kind? = switch event.level {
        case .trace, .debug: nil
        case .info, .notice: .info
        case .warning: .warning
        case .error, .critical: .critical
        }
        if let kind { log.add(event.message.description, kind: kind) }
    }
}
