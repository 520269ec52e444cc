import Foundation
import Synchronization
import SystemKit

/// A program run as a child, its stdout and stderr on one pipe: `ExternalProgram.spawn` starts it with a clean signal
/// state (Foundation's `Process` would hand it qbtd's blocked SIGTERM, and it would never stop on one).
final class ChildProcess: Sendable {
    let pid: pid_t
    /// stdout and stderr, merged.
    let output: FileHandle
    private let state = Mutex<(status: Int32?, waiters: [CheckedContinuation<Int32, Never>])>((nil, []))

    init(executable: String, arguments: [String]) throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw ExternalProgram.SpawnError(code: errno) }
        // Neither end leaks into other children qbtd starts (the child gets its copy through dup2).
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let spawned = ExternalProgram.spawn([executable] + arguments, output: ends[1])
        close(ends[1])
        switch spawned {
        case .failure(let error):
            close(ends[0])
            throw error
        case .success(let pid):
            self.pid = pid
        }
        output = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
        ExternalProgram.reap(pid) { [self] raw in
            let code = (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
            let parked = self.state.withLock { s in
                s.status = code
                defer { s.waiters = [] }
                return s.waiters
            }
            for waiter in parked { waiter.resume(returning: code) }
        }
    }

    var isRunning: Bool { state.withLock { $0.status == nil } }

    /// The exit status (128 + the signal for a child killed by one).
    func exited() async -> Int32 {
        await withCheckedContinuation { continuation in
            let done = state.withLock { s -> Int32? in
                if let status = s.status { return status }
                s.waiters.append(continuation)
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    func signal(_ number: Int32) {
        if isRunning { kill(pid, number) }
    }
}
