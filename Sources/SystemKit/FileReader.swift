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

    private let jobs = JobQueue()

    public init(threads: Int, name: String) {
        for i in 0..<max(1, threads) {
            let thread = Thread { [jobs] in
                while let job = jobs.next() { job() }
            }
            thread.name = "\(name)-\(i)"
            thread.start()
        }
    }

    /// Runs `work` (a read, an open, a read and what is made of it) on one of the reader's threads.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            jobs.add { continuation.resume(with: Result { try work() }) }
        }
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

/// The reader's queue: its threads sleep on the condition while it is empty.
private final class JobQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0

    func add(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// The next job, waiting for one; never nil (the threads live as long as the process).
    func next() -> (@Sendable () -> Void)? {
        condition.lock()
        defer { condition.unlock() }
        while head == jobs.count { condition.wait() }
        let job = jobs[head]
        head += 1
        if head == jobs.count {
            jobs.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024, head * 2 >= jobs.count {
            // A queue that never empties under load drops the jobs it has run, so it holds only those waiting.
            jobs.removeFirst(head)
            head = 0
        }
        return job
    }
}
