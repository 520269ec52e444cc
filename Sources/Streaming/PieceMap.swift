import Synchronization
import TorrentEngine

/// The pieces of one streamed torrent that are on disk, as the stream service knows them: filled once from the
/// engine when the torrent's first stream opens, then kept by its events alone (a piece's event sets its bit, the
/// event of a forget clears the pieces forgotten). Readers test it synchronously, from any thread: no actor hop and
/// no trip to libtorrent's network thread per chunk.
public final class PieceMap: Sendable {
    private let bits: Mutex<[UInt64]>
    public let count: Int

    public init(count: Int) {
        self.count = max(0, count)
        bits = Mutex([UInt64](repeating: 0, count: (self.count + 63) / 64))
    }

    public func has(_ piece: Int) -> Bool {
        guard piece >= 0, piece < count else { return false }
        return bits.withLock { $0[piece >> 6] & (1 << UInt64(piece & 63)) != 0 }
    }

    /// Sets a piece; false if it was set already (or is out of range).
    @discardableResult
    public func insert(_ piece: Int) -> Bool {
        guard piece >= 0, piece < count else { return false }
        let mask: UInt64 = 1 << UInt64(piece & 63)
        return bits.withLock { words in
            defer { words[piece >> 6] |= mask }
            return words[piece >> 6] & mask == 0
        }
    }

    public func remove<S: Sequence<Int>>(_ pieces: S) {
        bits.withLock { words in
            for piece in pieces where piece >= 0 && piece < count { words[piece >> 6] &= ~(1 << UInt64(piece & 63)) }
        }
    }

    public func removeAll() {
        bits.withLock { words in for i in words.indices { words[i] = 0 } }
    }

    /// Sets the pieces the engine says it has (never clears one: an event may have set it since the engine answered);
    /// returns the pieces newly set.
    @discardableResult
    public func merge(_ states: [PieceState]) -> [Int] {
        bits.withLock { words in
            var added: [Int] = []
            for (piece, state) in states.prefix(count).enumerated() where state == .have {
                let mask: UInt64 = 1 << UInt64(piece & 63)
                if words[piece >> 6] & mask == 0 {
                    words[piece >> 6] |= mask
                    added.append(piece)
                }
            }
            return added
        }
    }

    /// The first piece from `first` on (up to `limit`, exclusive) that is not on disk; `limit` if all are.
    public func firstMissing(from first: Int, before limit: Int) -> Int {
        let start = max(0, first)
        guard start < limit else { return limit }
        let end = min(limit, count)
        return bits.withLock { words in
            var p = start
            while p < end {
                let word = words[p >> 6] >> UInt64(p & 63)
                if word & 1 == 0 { return p }
                p += (~word).trailingZeroBitCount  // the run of set bits in this word at once
            }
            return min(p, limit)  // past `count`, nothing is on disk
        }
    }
}
