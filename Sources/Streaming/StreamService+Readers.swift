import Foundation
import Logging
import QBTCore
import TorrentEngine

/// Readers waiting for the piece under them, woken by piece events; the schedule follows the readers.
extension StreamService {
    /// A reader at `position` needs the piece under it: the schedule follows it, and the call returns once the
    /// piece is on disk (or throws when the stream stops or no data arrives in time).
    public func waitForData(_ token: String, reader: UUID, position: Int64) async throws {
        // While pieces are being forgotten, nobody starts reading: the piece checked could be punched out next.
        if let current = streams[token], forgetting.contains(current.torrentID) {
            await withCheckedContinuation { forgetWaiters[current.torrentID, default: []].append($0) }
        }
        guard var stream = streams[token] else { throw Failure.stopped }
        let moved = stream.readers[reader].map { stream.piece(at: $0) != stream.piece(at: position) } ?? true
        stream.readers[reader] = position
        stream.lastPosition = position
        streams[token] = stream
        if moved { await reschedule(stream.torrentID) }
        let piece = stream.piece(at: position)
        let id = stream.torrentID
        readClock += 1
        lastRead[id, default: [:]][piece] = readClock
        // On disk: no wait, and no question to the engine (the map is kept by its events).
        if stream.have.has(piece) { return }
        let key = UUID()
        let stall = configuration.stallTimeout
        // Stopped while the schedule was being set: no waiter may outlive its stream.
        guard streams[token] != nil else { throw Failure.stopped }
        // A torrent that cannot write (libtorrent's upload mode after a full or read-only disk, or its error) fetches
        // nothing: waiting would only be a stall.
        if let fault = writeFaults[id], let status = engine.snapshot.status(id), status.uploadMode || !status.error.isEmpty {
            throw Failure.storage(fault)
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            // Checked and registered in one turn of the actor, where the piece's event sets its bit and wakes its
            // readers: it cannot be missed. From then on only that event wakes it; the timer only ends a stall.
            waiters[id, default: [:]][piece, default: [:]][key] = (token, continuation)
            Task { await self.watch(id, piece, key, stall: stall) }
        }
    }

    /// Watches one parked reader until the stall timeout: every few seconds a torrent that has lost every peer calls
    /// its known peers again (a seed that dropped the connection mid-piece is otherwise never asked again). The piece's
    /// event alone wakes the reader; this only ends a stall.
    func watch(_ id: TorrentID, _ piece: Int, _ key: UUID, stall: Duration) async {
        let step = Duration.seconds(2)
        var waited = Duration.zero
        while waited < stall {
            guard waiters[id]?[piece]?[key] != nil else { return }
            if waited > .zero, (try? engine.status(id))?.numPeers == 0 { reconnect(id) }
            let nap = min(step, stall - waited)
            try? await Task.sleep(for: nap)
            waited += nap
        }
        resume(id, piece, key, with: .stalled(Int(stall.components.seconds)))
    }

    /// The most bytes one `Stream.run` hands out: the reader's position (and its schedule) moves on at least this often.
    static let maxRun: Int64 = 64 << 20

    public func leave(_ token: String, reader: UUID) async {
        guard streams[token]?.readers.removeValue(forKey: reader) != nil, let id = streams[token]?.torrentID else { return }
        await reschedule(id)
    }

    /// Wakes a piece's readers, on the spot. libtorrent (qbtd's patch, contrib/libtorrent/piece-finished-on-disk.patch)
    /// posts a piece's event once it has passed its check and is on disk, so the event is the proof: no polling, and
    /// no asking libtorrent again (a trip to its network thread, busy with the very download the reader waits for).
    /// A stream-cache piece the cache forgot meanwhile is caught by the reader's `isOnDisk` before any byte of it
    /// goes out; the reader then waits for its next event, and `watch` ends a stall.
    func wakeReaders(_ id: TorrentID, _ piece: Int) {
        for key in waiters[id]?[piece]?.keys.map({ $0 }) ?? [] { resume(id, piece, key, with: nil) }
    }

    func resume(_ id: TorrentID, _ piece: Int, _ key: UUID, with failure: Failure?) {
        guard let waiter = waiters[id]?[piece]?.removeValue(forKey: key) else { return }
        if waiters[id]?[piece]?.isEmpty == true { waiters[id]?[piece] = nil }
        if let failure { waiter.continuation.resume(throwing: failure) } else { waiter.continuation.resume() }
    }

    /// Deadlines for the pieces under and ahead of every reader of the torrent, nearest first, the window sized by
    /// time: about 4 s of the measured download rate (the client's guess until there is one), 2 to 64 MiB; then a
    /// high-priority prefetch of twice that. Called when a reader enters another piece.
    func reschedule(_ id: TorrentID) async {
        let active = streams.values.filter { $0.torrentID == id && !$0.readers.isEmpty }
        engine.noteDemand()  // the window follows the measured rate: keep it measured every second while readers read
        let status = try? engine.status(id)
        let measured = status?.downloadRate ?? 0
        let lonely = status.map { $0.numPeers == 0 } ?? false
        // The peers, to call again should they all hang up: noted every few seconds (a trip to libtorrent's network
        // thread), not at every piece a reader enters.
        if !lonely, peersNoted[id].map({ $0.duration(to: .now) >= .seconds(5) }) ?? true {
            peersNoted[id] = .now
            for peer in (try? await engine.peers(id)) ?? [] { knownPeers[id, default: []].insert("\(peer.ip)|\(peer.port)") }
        }
        var urgent: [(piece: Int, order: Int)] = []
        var windowPieces = Set<Int>()
        var prefetch = Set<Int>()
        for stream in active {
            let rate = max(measured, stream.networkRate)
            // Window and prefetch (three windows) fit in a quarter of the cache budget of a stream-cache torrent.
            let cap = stream.owned ? Int(min(Int64(64 << 20), configuration.budget / 12)) : 64 << 20
            let window = min(cap, max(min(2 << 20, cap), rate * 4))
            let count = max(2, (window + stream.pieceLength - 1) / stream.pieceLength)
            for position in stream.readers.values {
                let first = stream.piece(at: position)
                for (order, p) in (first..<(first + count)).enumerated() where stream.pieces.contains(p) {
                    // A stream-cache torrent's window goes by priority; only the piece under the reader gets a
                    // deadline (too many deadlines crowd out the one that matters, libtorrent #5891).
                    if stream.owned && order > 0 { windowPieces.insert(p) } else { urgent.append((p, order)) }
                }
                for p in (first + count)..<(first + 3 * count) where stream.pieces.contains(p) { prefetch.insert(p) }
            }
        }
        var best: [Int: Int] = [:]
        for entry in urgent { best[entry.piece] = min(best[entry.piece] ?? .max, entry.order) }
        let pieces = best.keys.sorted { (best[$0]!, $0) < (best[$1]!, $1) }
        let before = scheduled[id] ?? ([], [:])
        if pieces != before.deadlines {
            // A seek (or a move) drops the old deadlines at once, then the new window is set nearest first: one call.
            try? await engine.setPieceDeadlines(id, pieces.map { (piece: $0, milliseconds: best[$0]! * 100) }, clearingOthers: true)
        }
        var prioritized: [Int: Int] = [:]
        // With no reader left, the scheduler's priorities go back too: leftovers at the top would compete with the
        // next seek's piece.
        if streams.values.contains(where: { $0.torrentID == id && $0.owned }) {
            // Pieces under readers 7, the window 6, the prefetch 5; pieces evicted earlier have priority 0 until a
            // reader needs them again, and ones no longer wanted go back to the background priority.
            for p in prefetch { prioritized[p] = 5 }
            for p in windowPieces { prioritized[p] = 6 }
            for p in pieces { prioritized[p] = 7 }
            let leaving = before.prefetch.keys.filter { prioritized[$0] == nil }
            if !leaving.isEmpty {
                let background = backgroundPriority(id)
                for p in leaving { try? await engine.setPiecePriority(id, piece: p, priority: background) }
            }
            for (p, level) in prioritized where before.prefetch[p] != level { try? await engine.setPiecePriority(id, piece: p, priority: level) }
        }
        scheduled[id] = (pieces, prioritized)
        // With the pieces wanted again, a torrent that had lost its peers (a seed hung up) calls them.
        if lonely && !pieces.isEmpty { reconnect(id) }
    }

    /// Connects the torrent's known peers again, now and a little later: a peer that has not yet seen the old
    /// connection close refuses a new one as a duplicate.
    func reconnect(_ id: TorrentID) {
        let peers = (knownPeers[id] ?? []).compactMap { entry -> (String, Int)? in
            let parts = entry.split(separator: "|")
            guard parts.count == 2, let port = Int(parts[1]) else { return nil }
            return (String(parts[0]), port)
        }
        // One round of calls per torrent at a time, however many readers and reschedules ask for it.
        guard !peers.isEmpty, reconnecting.insert(id).inserted else { return }
        Task {
            for delay in [0, 300, 1000, 3000] {
                try? await Task.sleep(for: .milliseconds(delay))
                for (host, port) in peers { try? await engine.connectPeer(id, host: host, port: port) }
            }
            reconnecting.remove(id)
        }
    }
}
