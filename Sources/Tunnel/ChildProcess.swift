import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A program run as a child with a clean signal state, its stdout and stderr on one pipe. Foundation's `Process`
/// hands the child the spawning thread's signal mask, and qbtd's threads block SIGTERM (ServiceLifecycle watches it
/// through a signal source): such a child never hears the SIGTERM that should stop it. Here the mask is emptied and
/// the usual signals are back at their defaults, and the child gets a process group of its own (a Ctrl-C on qbtd's
/// terminal reaches qbtd, which stops it).
final class ChildProcess: @unchecked Sendable {
    struct SpawnError: Error, CustomStringConvertible {
        let code: Int32
        var description: String { String(cString: strerror(code)) }
    }

    let pid: pid_t
    /// stdout and stderr, merged.
    let output: FileHandle
    private let lock = NSLock()
    private var status: Int32?
    private var waiters: [CheckedContinuation<Int32, Never>] = []

    init(executable: String, arguments: [String]) throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw SpawnError(code: errno) }
        // Neither end leaks into other children qbtd starts (the child gets its copy through dup2).
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2, SIGCHLD, SIGALRM] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        close(ends[1])
        guard result == 0 else {
            close(ends[0])
            throw SpawnError(code: result)
        }
        self.pid = pid
        output = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
        let spawned = pid
        // The exit is waited for on a thread of its own, never on Swift's cooperative pool.
        let thread = Thread { [self] in
            var raw: Int32 = 0
            while waitpid(spawned, &raw, 0) < 0 && errno == EINTR {}
            let code = (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
            lock.lock()
            status = code
            let parked = waiters
            waiters = []
            lock.unlock()
            for waiter in parked { waiter.resume(returning: code) }
        }
        thread.name = "qbtd-child-wait"
        thread.start()
    }

    var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return status == nil
    }

    /// The exit status (128 + the signal for a child killed by one).
    func exited() async -> Int32 {
        await withCheckedContinuation { continuation in
            lock.lock()
            if let status {
                lock.unlock()
                continuation.resume(returning: status)
            } else {
                waiters.append(continuation)
                lock.unlock()
            }
        }
    }

    func signal(_ number: Int32) {
        if isRunning { kill(pid, number) }
    }
}
