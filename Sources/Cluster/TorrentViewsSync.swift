import Foundation
import HashTreeCollections
import Logging
import QBTCore
import Store
import TorrentEngine

/// A cluster's listings: each node publishes its torrents' views (facts and status, as its own rows show them) to the
/// catalogue once a second and within a moment of a change the engine tells of (a state, a pause, an add), only those
/// whose board entry changed, and takes the others' as they publish theirs
/// (woken by the catalogue's notification, and every few seconds in case one was missed), so any node lists every
/// torrent of the cluster.
public actor TorrentViewsSync {
    /// How often this node publishes what changed.
    public static let publishEvery: Duration = .seconds(1)
    /// How often it reads the others' without being woken.
    public static let catchUpEvery: Duration = .seconds(5)
    static let page = 2000

    let registry: any NodeRegistry
    public nonisolated let service: TorrentService
    let node: String
    let logger: Logger
    /// The entries last published, by torrent: an entry that is the same object has not changed.
    private var published = TreeDictionary<TorrentID, BoardEntry>()
    /// The newest change of the others' read so far.
    private var seen: Int64 = 0
    /// A read is under way; `again`: a wake came meanwhile, so another follows it.
    private var reading = false
    private var again = false
    /// When the last read failed (nil: it did not): listings then answer at once from what this node holds, each
    /// starting a read if none is under way.
    private var failedAt: ContinuousClock.Instant?
    /// Callers of `catchUpNow` waiting for the read under way, and the one after it, to end.
    private var waiters: [CheckedContinuation<Void, Never>] = []

    public init(registry: any NodeRegistry, service: TorrentService, node: String, logger: Logger) {
        self.registry = registry
        self.service = service
        self.node = node
        self.logger = logger
    }

    /// Nodes whose publications this one cannot read (another layout: another qbtd version), told once each.
    private var unreadable: Set<String> = []

    /// Publications one at a time (two at once could store the older over the newer, and the newer be taken as
    /// published); a caller waits for one that started after its call.
    private var rounds: FreshReads?

    private func publications() -> FreshReads {
        if let rounds { return rounds }
        let made = FreshReads { [weak self] in try await self?.publishOnce() }
        rounds = made
        return made
    }

    /// The most a caller waits for its publication (a catalogue that answers slowly; a client's change is answered
    /// then, and the publication goes on).
    static let publishWait: Duration = .seconds(5)

    /// Publishes this node's torrents that changed since the last time, and those it no longer has: returns once a
    /// publication that started after the call ended, after `publishWait`, or at once while the last one failed (the
    /// catalogue out of reach: the next second's tries again).
    public func publish() async {
        await publications().fresh(within: Self.publishWait)
    }

    /// At most one publication this often for the engine's events, however many come (a restore brings thousands).
    static let eventSpacing: Duration = .milliseconds(100)

    /// Publishes soon after each engine event a listing shows at once, until the stream ends: another node lists a
    /// torrent's new state within a moment rather than at the next second's publication.
    public func publishOnEvents(_ events: AsyncStream<EngineEvent>) async {
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let forward = Task {
            for await event in events where Self.shows(event) { wake.yield() }
            wake.finish()
        }
        defer { forward.cancel() }
        for await _ in wakes {
            await publish()
            try? await Task.sleep(for: Self.eventSpacing)
        }
    }

    /// Whether an event changes what a torrent's row shows (a finished piece only moves its progress: the second's
    /// publication takes that).
    static func shows(_ event: EngineEvent) -> Bool {
        switch event {
        case .added, .removed, .metadataReceived, .finished, .stateChanged, .paused, .resumed, .checked, .torrentError,
             .fileError, .resumeRejected, .storageMoved, .storageMoveFailed, .fileRenamed:
            true
        case .filesDeleted, .deleteFailed, .pieceFinished, .piecesForgotten, .hashFailed, .listening, .listenFailed,
             .fileRenameFailed, .fileCompleted, .trackerStatus, .peerBlocked:
            false
        }
    }

    private func publishOnce() async throws {
        let board = await service.freshBoard()
        var changed: [(id: String, body: Data)] = []
        var removed: [String] = []
        for (id, entry) in board.entries where published[id] !== entry {
            do {
                changed.append((id, try PublishedView.Body(entry.view).encoded()))
            } catch {
                logger.error("node \(node) could not encode torrent \(id) for the other nodes: \(error)")
            }
        }
        for (id, _) in published where board.entries[id] == nil { removed.append(id) }
        guard !changed.isEmpty || !removed.isEmpty else { return }
        do {
            try await registry.publishViews(changed, removed: removed)
            published = board.entries
        } catch {
            logger.warning("node \(node) could not publish \(changed.count + removed.count) torrent(s) to the cluster (again in a second): \(error)")
            throw error
        }
    }

    /// Takes what the other nodes published since the last read: one read at a time (the actor lets a second in
    /// while the first waits on the database; it would apply an older read over a newer one), and one more after it
    /// when woken meanwhile.
    public func catchUp() async {
        guard !reading else { again = true; return }
        reading = true
        defer {
            reading = false
            let woken = waiters
            waiters = []
            for waiter in woken { waiter.resume() }
        }
        for _ in 0..<100 {  // bounded: wakes keep coming only while others keep publishing
            again = false
            await readOnce()
            if !again { return }
        }
    }

    private func readOnce() async {
        var changes: [TorrentID: RemoteTorrent?] = [:]
        do {
            for _ in 0..<1000 {  // bounded: 2 million changes in one go
                let views = try await registry.views(after: seen, limit: Self.page)
                for view in views {
                    changes[view.id] = .some(remote(view))
                }
                seen = views.last?.seq ?? seen
                if views.count < Self.page { break }
            }
            failedAt = nil
        } catch {
            failedAt = .now
            logger.warning("node \(node) could not read the other nodes' torrents (again in \(Self.catchUpEvery)): \(error)")
        }
        await service.takeRemote(changes)
    }

    /// The torrent a view shows (nil: its node removed it, or this node cannot read it).
    private func remote(_ view: PublishedView) -> RemoteTorrent? {
        guard let data = view.body else { return nil }
        do {
            let body = try PublishedView.Body(decoding: data)
            return RemoteTorrent(facts: body.facts, status: body.status, node: view.node)
        } catch {
            if unreadable.insert(view.node).inserted {
                logger.error("node \(node) cannot read the torrents node \(view.node) publishes, so it does not list them: \(error)")
            }
            return nil
        }
    }

    /// Takes what the others had published when asked before it returns (a listing then shows a change another node
    /// answered a moment ago): a read of its own, or the one after the read under way.
    public func catchUpNow() async {
        guard reading else { return await catchUp() }
        again = true
        await withCheckedContinuation { waiters.append($0) }
    }

    /// `catchUpNow`, waited for at most `limit`: a listing answers from what this node holds when the catalogue is
    /// slow or gone (PostgreSQL restarting), and the read goes on for the next one.
    public func catchUpNow(within limit: Duration) async {
        if failedAt != nil {  // the catalogue was gone at the last read: no wait until a read gets through again
            if !reading { Task { await catchUp() } }
            return
        }
        let (ended, end) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let reading = Task { await self.catchUpNow(); end.yield() }
        let timer = Task { try? await Task.sleep(for: limit); end.yield() }
        for await _ in ended { break }
        timer.cancel()
        _ = reading  // not cancelled: its read ends on its own (its waiters with it)
    }

    /// Reads the others' each time one of them publishes, until cancelled.
    public func follow() async {
        for await _ in registry.viewPublications() {
            await catchUp()
        }
    }
}
