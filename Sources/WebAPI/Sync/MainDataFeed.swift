import HTTPKit
import NIOCore
import SystemKit

/// `sync/maindata` pushed (qbtd's `/api/v2/qbtd/events`): one loop for every listener makes the server's snapshot
/// at most `interval` apart while anyone listens, numbers each one that differs from the last, and keeps the last
/// `held` of them. A listener is only told that a newer number exists (its stream holds the newest, never a queue),
/// then asks for the answer taking it from the number it has to the newest: the same bytes for every listener at the
/// same number, made once. A listener whose number is no longer held fell behind and is dropped.
public actor MainDataFeed {
    /// The fastest events come: coalesced to at most four a second.
    public static let interval: Duration = .milliseconds(250)
    /// Snapshots held to answer from (16 s of events at the fastest): what a reconnecting client can resume from.
    public static let held = 64
    /// The fastest events come when only the server's totals changed (as often as `sync/maindata` refreshes them).
    static let stateInterval: Duration = .seconds(1)

    public enum Answer: Sendable {
        /// The newest snapshot's number and the answer (JSON) from the listener's number to it.
        case update(rid: Int, json: ByteBuffer)
        /// The listener is at the newest snapshot already.
        case current
        /// The listener's number is no longer held: it fell behind.
        case behind
    }

    private let make: @Sendable () async -> MainData
    private var snapshots: [(rid: Int, data: MainData)] = []
    private var lastRID = 0
    private var lastPublished = ContinuousClock.now
    /// Answers to the newest snapshot, by the number they start from (0: the full update).
    private var answers: [Int: ByteBuffer] = [:]
    private var listeners: [UInt64: AsyncStream<Void>.Continuation] = [:]
    private var nextListener: UInt64 = 0
    private var loop: Task<Void, Never>?
    private var closed = false

    /// How often the loop looks, and how many snapshots it keeps (the statics, but for tests).
    private let every: Duration
    private let keep: Int

    /// The event numbers start at a random point of their range (0 to 1,000,000), not at 1: a `Last-Event-ID` another
    /// process gave (a cluster's other node, behind a balancer; this server before a restart) is then almost never one
    /// this feed holds, so it gets a full update instead of a diff from the wrong snapshot.
    public init(sync: SyncController) {
        self.init(make: { await sync.mainData() }, firstRID: Int.random(in: 0..<1_000_000))
    }

    init(make: @escaping @Sendable () async -> MainData, every: Duration = MainDataFeed.interval, keep: Int = MainDataFeed.held,
         firstRID: Int = 0) {
        self.make = make
        self.every = every
        self.keep = keep
        self.lastRID = firstRID
    }

    /// A listener: its stream yields whenever a newer snapshot exists (and once at once when one does already).
    public func listen() -> (id: UInt64, updates: AsyncStream<Void>) {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        guard !closed else { continuation.finish(); return (0, stream) }
        nextListener += 1
        listeners[nextListener] = continuation
        if !snapshots.isEmpty { continuation.yield() }
        if loop == nil { loop = Task { await run() } }
        return (nextListener, stream)
    }

    public func leave(_ id: UInt64) {
        listeners.removeValue(forKey: id)?.finish()
    }

    /// Listeners connected now.
    public var count: Int { listeners.count }

    /// The answer taking a listener at `rid` to the newest snapshot. `resuming`: the number is the client's own
    /// (`Last-Event-ID`, a connection's first answer): one not held gets a full update instead of `.behind`, and the
    /// newest one `{"rid": N}` at once instead of nothing.
    public func answer(from rid: Int, resuming: Bool) async -> Answer {
        guard let newest = snapshots.last else { return .current }
        if rid == newest.rid && rid != 0 {
            // A client back at the newest number is told so at once: nothing changed since.
            return resuming ? .update(rid: rid, json: ByteBuffer(string: #"{"rid":\#(rid)}"#)) : .current
        }
        let base = rid == 0 ? nil : snapshots.last(where: { $0.rid == rid })
        if base == nil && rid != 0 && !resuming { return .behind }
        let key = base?.rid ?? 0
        if let made = answers[key] { return .update(rid: newest.rid, json: made) }
        let (from, to, newestRID) = (base?.data, newest.data, newest.rid)
        // A big library's full update is made on the background threads, not the actor's (the request threads).
        let bytes = from == nil && TorrentsController.isBig(to.rows.rows.count)
            ? await inBackground { MainDataSync.answer(from: nil, to: to, rid: newestRID).bytes }
            : MainDataSync.answer(from: from, to: to, rid: newestRID).bytes
        let json = ByteBuffer(bytes: bytes)
        if snapshots.last?.rid == newestRID { answers[key] = json }  // unless a newer snapshot came meanwhile
        return .update(rid: newestRID, json: json)
    }

    /// While anyone listens: a snapshot every `interval`, published when it says anything new.
    private func run() async {
        while !listeners.isEmpty && !Task.isCancelled {
            publish(await make())
            try? await Task.sleep(for: every)
        }
        loop = nil
        // A listener that came while the loop was ending has no loop yet.
        if !listeners.isEmpty { loop = Task { await run() } }
    }

    private func publish(_ data: MainData) {
        let rid = lastRID % 1_000_000 + 1
        var diff: (from: Int, json: ByteBuffer)?
        if let last = snapshots.last {
            // The server's totals (rates, free space) move all the time: alone they make an event once a second.
            if ContinuousClock.now - lastPublished < Self.stateInterval, Self.onlyServerStateMoved(last.data, data) { return }
            let answer = MainDataSync.answer(from: last.data, to: data, rid: rid)
            guard answer.changes else { return }
            diff = (last.rid, ByteBuffer(bytes: answer.bytes))  // what every listener that kept up is sent
        }
        lastRID = rid
        lastPublished = .now
        snapshots.append((rid, data))
        if snapshots.count > keep { snapshots.removeFirst(snapshots.count - keep) }
        answers = [:]
        if let diff { answers[diff.from] = diff.json }
        for listener in listeners.values { listener.yield() }
    }

    static func onlyServerStateMoved(_ old: MainData, _ new: MainData) -> Bool {
        var oldRest = old.rest, newRest = new.rest
        oldRest["server_state"] = nil
        newRest["server_state"] = nil
        return oldRest == newRest && new.rows.changed(since: old.rows).isEmpty && new.rows.removed(since: old.rows).isEmpty
    }

    /// Wakes one listener (its keep-alive).
    public func nudge(_ id: UInt64) { listeners[id]?.yield() }

    /// The server stops: every listener's stream ends, and no new one begins.
    public func close() {
        closed = true
        for listener in listeners.values { listener.finish() }
        listeners = [:]
        loop?.cancel()
    }
}
