import Foundation
import Synchronization

/// The library's segmenters that a segment request can use without a trip to the library's actor (the music
/// segments' fast path): the same entries as the library's own, with the track's path. The library sets and drops
/// them with its own and empties them whenever a scan writes tracks; a request still stats the file and takes an
/// entry only while the file has the stamp it was indexed with.
public final class ReadySegmenters: Sendable {
    struct Entry: Sendable {
        var path: String
        var stamp: FileStamp
        var segmenter: HLSSegmenter
    }

    private let entries = Mutex<[Int64: Entry]>([:])

    init() {}

    /// Segment `n` of track `id` with its file's stamp (the version that names the cut segment), when the track's
    /// segmenter is ready and its file unchanged; nil sends the caller to the library.
    public func part(track id: Int64, segment n: Int) -> (stamp: FileStamp, part: HLSSegmenter.Part)? {
        guard let entry = entries.withLock({ $0[id] }), let part = entry.segmenter.part(n),
              let stamp = FileStamp(path: entry.path), stamp == entry.stamp,
              part.offset + Int64(part.length) <= stamp.size else { return nil }
        return (stamp, part)
    }

    func set(_ id: Int64, path: String, stamp: FileStamp, segmenter: HLSSegmenter) {
        entries.withLock { $0[id] = Entry(path: path, stamp: stamp, segmenter: segmenter) }
    }

    func remove(_ id: Int64) { entries.withLock { _ = $0.removeValue(forKey: id) } }

    func clear() { entries.withLock { $0.removeAll() } }
}
