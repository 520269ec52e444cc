import CLinux
import Foundation

/// A serial executor with a thread of its own. The libtorrent engine actor runs on it, so every call into
/// libtorrent (several of which wait for libtorrent's network thread) blocks this thread, never one of the
/// cooperative pool's (two on a 2-core machine).
final class EngineThread: SerialExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    init(name: String) {
        let thread = Thread { [unowned self] in
            // Set from inside, on the thread itself: Foundation's `Thread.current.name =` could name another Thread
            // object on Linux and leave this one with the name it was started from (a test saw "r-initiated-qos").
            qbt_name_this_thread(name)
            self.run()
        }
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    private func run() {
        var batch: [UnownedJob] = []
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            swap(&batch, &jobs)
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedSerialExecutor()) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
