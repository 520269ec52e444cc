#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// File reads for response bodies (stream chunks, HLS segments, the music database), on a few threads of their own:
/// a `pread` waits on the disk, and on Swift's cooperative pool (two threads on a 2-core machine) it would hold up
/// every request meanwhile. Unlike `offPool` (Dispatch's global queue, which adds threads while work blocks), the
/// threads are fixed: a burst of readers queues here, first come first served, and the requests keep the pool.
public final class FileReader: Sendable {
    /// The server's one reader: every body read goes through it.
    public static let shared = FileReader(threads: 2, name: "qbtd-read")

    /// A read that failed: the system's error number, or 0 when the file ended first.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let errno: Int32
        public let offset: Int64

        public init(errno: Int32, offset: Int64) {
            self.errno = errno
            self.offset = offset
        }

        public var description: String {
            errno == 0 ? "the file ends before byte \(offset)" : "read at \(offset) failed: \(String(cString: strerror(errno))) (errno \(errno))"
        }
    }

    private let threads: WorkerThreads

    public init(threads: Int, name: String) {
        self.threads = WorkerThreads(threads, name: name)
    }

    /// Runs `work` (a read, an open, a read and what is made of it) on one of the reader's threads.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await threads.run(work)
    }

    /// Up to `count` bytes of the open file at `offset`: fewer only where the file ends; none past its end.
    public func read(_ descriptor: Int32, at offset: Int64, count: Int) async throws -> [UInt8] {
        try await run {
            try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                initialized = try Self.pread(descriptor, into: UnsafeMutableRawBufferPointer(buffer), at: offset)
            }
        }
    }

    /// The blocking read itself, for `run`'s work: fills `buffer` from `offset` until it is full or the file ends
    /// (retrying interrupted and short reads); returns the bytes read. Throws the system's error.
    public static func pread(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        var done = 0
        while done < buffer.count {
            let n = systemRead(descriptor, buffer.baseAddress! + done, buffer.count - done, offset + Int64(done))
            if n > 0 { done += n; continue }
            if n == 0 { break }
            if errno == EINTR { continue }
            throw Failure(errno: errno, offset: offset + Int64(done))
        }
        return done
    }
}

/// pread(2), by a name the reader's own `pread` does not hide.
private func systemRead(_ descriptor: Int32, _ into: UnsafeMutableRawPointer, _ count: Int, _ offset: Int64) -> Int {
    pread(descriptor, into, count, off_t(offset))
}
