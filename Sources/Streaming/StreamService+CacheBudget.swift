import Foundation
import Logging
import QBTCore
import TorrentEngine

/// The stream cache's budget per torrent: pieces no reader needs are forgotten and punched out of the files.
extension StreamService {
    /// Keeps a stream-cache torrent's pieces on disk (finished and in progress) within the budget: the least
    /// recently read ones that no reader is on or heading to are forgotten by libtorrent (in place: the torrent keeps
    /// its peers and deadlines) and punched out of the files. Runs after every finished piece of such a torrent.
    func enforceBudget(_ id: TorrentID) async {
        // One eviction per torrent at a time; a piece finishing meanwhile sends it round once more.
        guard enforcing.insert(id).inserted else {
            enforceAgain.insert(id)
            return
        }
        defer { enforcing.remove(id) }
        for _ in 0..<8 {
            enforceAgain.remove(id)
            await evictOverBudget(id)
            if !enforceAgain.contains(id) { return }
        }
    }

    /// The background priority of a stream-cache torrent's streamed files: 1 (all of it, at low priority) while they
    /// fit below the level where eviction starts, else 0 (only what the scheduler asks for): pieces fetched far ahead
    /// of every reader would be evicted unread and fetched again. The torrent streams meanwhile, so having every piece
    /// it wants does not make it drop its seeds.
    func backgroundPriority(_ files: [TorrentFile]) -> Int {
        files.reduce(0) { $0 + $1.size } <= configuration.budget * 4 / 5 ? 1 : 0
    }

    func backgroundPriority(_ id: TorrentID) -> Int {
        backgroundPriority(Dictionary(grouping: streams.values.filter { $0.torrentID == id }, by: \.file.index).values.compactMap(\.first?.file))
    }

    func evictOverBudget(_ id: TorrentID) async {
        guard let stream = streams.values.first(where: { $0.torrentID == id && $0.owned }) else { return }
        guard let states = try? await engine.pieceStates(id) else { return }
        let pieceLength = Int64(stream.pieceLength)
        let used = Int64(states.filter { $0 != .missing }.count) * pieceLength
        // Act at 80 % of the budget and go down to 50 %: pieces that start meanwhile fit, and evictions are few.
        guard used > configuration.budget * 4 / 5 else { return }
        // From here on no await until the pieces are forgotten: the readers and the schedule seen are the real ones.
        let streamsOfTorrent = streams.values.filter { $0.torrentID == id }
        let positions = streamsOfTorrent.flatMap { s in s.readers.values.map(s.piece(at:)) }
        let protected = Set(scheduled[id]?.deadlines ?? []).union(scheduled[id].map { Array($0.prefetch.keys) } ?? [])
            .union(positions)
        let reads = lastRead[id] ?? [:]
        // Pieces already read go first, least recently read first; then unread ones, farthest from any reader.
        func distance(_ p: Int) -> Int { positions.map { abs($0 - p) }.min() ?? p }
        let candidates = states.indices.filter { states[$0] == .have && !protected.contains($0) }
            .sorted { a, b in
                switch (reads[a], reads[b]) {
                case let (x?, y?): return (x, a) < (y, b)
                case (.some, nil): return true
                case (nil, .some): return false
                case (nil, nil): return (distance(a), a) > (distance(b), b)
                }
            }
        let count = Int((used - configuration.budget / 2 + pieceLength - 1) / pieceLength)
        let evicted = Array(candidates.prefix(count))
        guard !evicted.isEmpty else { return }
        logger.info("stream cache: forgetting \(evicted.count) piece(s) of \(id) (\(used >> 20) MiB on disk, budget \(configuration.budget >> 20) MiB): \(evicted.sorted()); readers at pieces \(positions.sorted())")
        forgetting.insert(id)
        defer { forgetting.remove(id) }  // wakes the readers parked meanwhile
        // Every forget the engine does raises one event; this one's is the `mine`-th.
        forgetsAsked[id, default: 0] += 1
        let mine = forgetsAsked[id, default: 0]
        guard let forgotten = try? await engine.forgetPieces(id, evicted) else {
            forgetsAsked[id, default: 1] -= 1  // refused: no event comes
            return
        }
        // Their bits go first (by the forget's event, in order with the pieces' events), then their bytes: a reader
        // that read a punched hole finds its piece gone from the map after the read.
        while forgetsSeen[id, default: 0] < mine {
            await withCheckedContinuation { forgetEventWaiters[id, default: []].append($0) }
        }
        // Punched at once, before a reader can ask for a piece again and have it downloaded anew; only the pieces
        // libtorrent forgot (one still being written to disk stays, and is evicted another time).
        let files = Dictionary(grouping: streamsOfTorrent, by: \.file.index).values.compactMap(\.first)
        for piece in forgotten {
            for s in files {
                Self.punch(s.path, from: Int64(piece) * pieceLength - s.file.offset, to: Int64(piece + 1) * pieceLength - s.file.offset,
                           size: s.file.size)
            }
            lastRead[id]?[piece] = nil
        }
    }

    /// Frees the file's blocks in `[from, to)` (clamped to the file), keeping its size.
    static func punch(_ path: String, from: Int64, to: Int64, size: Int64) {
        let start = max(0, from), end = min(size, to)
        guard end > start else { return }
        _ = LibtorrentEngine.punchHole(path, offset: start, length: end - start)
    }
}
