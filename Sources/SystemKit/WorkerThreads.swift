import CLinux
import Foundation

/// A fixed set of threads of qbtd's own, running jobs first come first served. `FileReader` reads on two;
/// `WorkerThreads.background` makes big answers (listings of a big library, their gzip) on two more at a lower
/// priority (nice 10), so a request thread that has work always goes first: a client's burst of full listings then
/// takes what the others leave, not their turn.
public final class WorkerThreads: Sendable {
    /// Where work that may wait for requests runs: listings of thousands of torrents, and gzip of big answers.
    public static let background = WorkerThreads(2, name: "qbtd-background", nice: 10)

    private let jobs = JobQueue()

    /// `nice` is the threads' niceness (0: as the rest of the process; higher runs when nothing else wants the CPU).
    public init(_ count: Int, name: String, nice: Int32 = 0) {
        for i in 0..<max(1, count) {
            let thread = Thread { [jobs] in
                if nice != 0 { qbt_nice_this_thread(nice) }
                while let job = jobs.next() { job() }
            }
            thread.name = "\(name)-\(i)"
            thread.start()
        }
    }

    /// Runs `work` on one of the threads and returns what it returned or threw.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            jobs.add { continuation.resume(with: Result { try work() }) }
        }
    }

    /// The same, for work that cannot fail.
    public func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            jobs.add { continuation.resume(returning: work()) }
        }
    }
}

/// Runs work that may wait for requests (`WorkerThreads.background`).
public func inBackground<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await WorkerThreads.background.run(work)
}

/// The same, for work that cannot fail.
public func inBackground<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await WorkerThreads.background.run(work)
}

/// The threads' queue: they sleep on the condition while it is empty.
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
