import Foundation
import Synchronization

/// Uploads in progress, for `GET /api/v2/uploads`. Writers bump an atomic counter; nothing hops an actor per chunk.
public final class UploadTicket: Sendable {
    public let id: String
    public let kind: String
    public let name: Mutex<String>
    public let total: Int64?
    public let startedAt: Int64
    let counter = Atomic<Int64>(0)
    /// The board's count of every byte received (for metrics).
    let tally: ByteTally

    init(id: String, kind: String, name: String, total: Int64?, tally: ByteTally, startingAt offset: Int64) {
        counter.store(offset, ordering: .relaxed)
        self.id = id
        self.kind = kind
        self.name = Mutex(name)
        self.total = total
        self.tally = tally
        startedAt = Int64(Date().timeIntervalSince1970)
    }

    public var received: Int64 { counter.load(ordering: .relaxed) }

    public func add(_ n: Int) {
        counter.add(Int64(n), ordering: .relaxed)
        tally.add(Int64(n))
    }

    /// A resumable upload's offset; what it grew by counts as received.
    public func set(_ n: Int64) {
        let before = counter.exchange(n, ordering: .relaxed)
        if n > before { tally.add(n - before) }
    }
}

/// A running byte count shared by every ticket of a board.
public final class ByteTally: Sendable {
    private let value = Atomic<Int64>(0)
    public init() {}
    func add(_ n: Int64) { value.add(n, ordering: .relaxed) }
    public var total: Int64 { value.load(ordering: .relaxed) }
}

public final class ProgressBoard: Sendable {
    private let tickets = Mutex<[String: UploadTicket]>([:])
    /// Every byte any upload received since qbtd started (a resumed tus upload counts only what is new).
    public let received = ByteTally()

    public init() {}

    /// `offset`: what a resumed upload holds already (not counted as received again).
    public func open(kind: String, name: String, total: Int64?, id: String = UUID().uuidString.lowercased(),
                     startingAt offset: Int64 = 0) -> UploadTicket {
        let ticket = UploadTicket(id: id, kind: kind, name: name, total: total, tally: received, startingAt: offset)
        tickets.withLock { $0[ticket.id] = ticket }
        return ticket
    }

    public func close(_ ticket: UploadTicket) { _ = tickets.withLock { $0.removeValue(forKey: ticket.id) } }

    public var all: [UploadTicket] { tickets.withLock { Array($0.values) }.sorted { $0.startedAt < $1.startedAt } }
}
