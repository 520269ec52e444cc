#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// Segments kept on disk once cut (the tag and the frames, encrypted when the library is), so that the next request
/// for one is a sendfile of a whole file, as nginx serves segments ffmpeg cut beforehand. Encryption (AES-128-CBC, about
/// 0.17 ms of CPU for a 240 kB segment) is then paid once a segment, not once a request; and a plain segment sent from
/// a file of its own cost less than one sent from its place in the track with its tag before it (0.08 against 0.10 ms
/// of the server's CPU, and curl's too, on 2 cores). A segment's file is named for its track, the track file's stamp
/// (its version) and its number, so a changed file never meets the old one's segments; keys never change (they derive
/// from the library's secret), so a stored segment is right for as long as its name is. The folder is emptied at start
/// and holds at most `budget` bytes, the oldest removed first. A file removed while an answer sends it is still sent
/// whole (the descriptor holds it).
public final class CutSegments: Sendable {
    public struct Stored: Sendable, Equatable {
        public var path: String
        public var length: Int
    }

    struct Name: Hashable {
        var track: Int64
        /// The track file's stamp as playlists carry it (`FileStamp.text`).
        var version: String
        var segment: Int
    }

    struct Shelf {
        var files: [Name: Stored] = [:]
        /// Names in the order they were stored, oldest first (a removed name is skipped when its turn comes).
        var order: [Name] = []
        var head = 0
        var bytes = 0
    }

    public let directory: String
    public let budget: Int
    private let shelf = Mutex(Shelf())
    /// Numbers each file stored, so that no two are ever one path: an eviction unlinks its own file, never a newer
    /// copy of the same segment stored meanwhile.
    private let serial = Atomic<UInt64>(0)

    /// `directory` is made, or its contents removed, now (a folder that is a link to elsewhere stays one).
    public init(directory: String, budget: Int) {
        self.directory = directory
        self.budget = budget
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            try? FileManager.default.removeItem(atPath: directory + "/" + name)
        }
    }

    /// The stored segment, if any.
    public func stored(track: Int64, version: String, segment n: Int) -> Stored? {
        let name = Name(track: track, version: version, segment: n)
        return shelf.withLock { $0.files[name] }
    }

    /// Keeps `bytes` as the segment's file and forgets the oldest beyond the budget. Blocks (a write of the file):
    /// run it off the cooperative pool. A failed write only means the next request cuts it again.
    public func store(_ bytes: [UInt8], track: Int64, version: String, segment n: Int) {
        guard !bytes.isEmpty, bytes.count <= budget else { return }
        let name = Name(track: track, version: version, segment: n)
        if shelf.withLock({ $0.files[name] != nil }) { return }
        // Recorded only once written whole, so no reader opens a file being written.
        let path = "\(directory)/\(track)-\(version)-\(n)-\(serial.wrappingAdd(1, ordering: .relaxed).newValue).seg"
        guard Self.save(bytes, to: path) else {
            unlink(path)
            return
        }
        let gone: [String] = shelf.withLock { shelf in
            guard shelf.files[name] == nil else { return [path] }  // a concurrent request stored the same bytes first
            shelf.files[name] = Stored(path: path, length: bytes.count)
            shelf.order.append(name)
            shelf.bytes += bytes.count
            var gone: [String] = []
            while shelf.bytes > budget, shelf.head < shelf.order.count {
                let oldest = shelf.order[shelf.head]
                shelf.head += 1
                if let file = shelf.files.removeValue(forKey: oldest) {
                    shelf.bytes -= file.length
                    gone.append(file.path)
                }
            }
            if shelf.head > 4096, shelf.head * 2 > shelf.order.count {
                shelf.order.removeFirst(shelf.head)
                shelf.head = 0
            }
            return gone
        }
        for path in gone { unlink(path) }
    }

    /// The bytes stored, for tests and callers that cannot send a file.
    public var storedBytes: Int { shelf.withLock { $0.bytes } }

    static func save(_ bytes: [UInt8], to path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }
}
