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

    init(id: String, kind: String, name: String, total: Int64?) {
        self.id = id
        self.kind = kind
        self.name = Mutex(name)
        self.total = total
        startedAt = Int64(Date().timeIntervalSince1970)
    }

    public var received: Int64 { counter.load(ordering: .relaxed) }
    public func add(_ n: Int) { counter.add(Int64(n), ordering: .relaxed) }
    public func set(_ n: Int64) { counter.store(n, ordering: .relaxed) }
}

public final class ProgressBoard: Sendable {
    private let tickets = Mutex<[String: UploadTicket]>([:])

    public init() {}

    public func open(kind: String, name: String, total: Int64?, id: String = UUID().uuidString.lowercased()) -> UploadTicket {
        let ticket = UploadTicket(id: id, kind: kind, name: name, total: total)
        tickets.withLock { $0[ticket.id] = ticket }
        return ticket
    }

    public func close(_ ticket: UploadTicket) { _ = tickets.withLock { $0.removeValue(forKey: ticket.id) } }

    public var all: [UploadTicket] { tickets.withLock { Array($0.values) }.sorted { $0.startedAt < $1.startedAt } }
}
