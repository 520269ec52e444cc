import Foundation
import Synchronization

/// One warm `python3 -I qbtd_forkserver.py` per Python executable, forking a child per plugin run (the protocol is
/// described beside the script in `NovaScripts.forkServer`). A search then waits for a fork, not for five
/// interpreters starting at once on two cores. Each child still writes to output of its own (two FIFOs qbtd made
/// and holds open), is killed on its own (its process group, by the server, which reaps it) and dies with the
/// server; the server ends when qbtd closes its stdin. When the server cannot run, `launch` says so and the caller
/// starts the plugin as a process of its own, as before.
final class NovaForkServer: Sendable {
    enum Exit: Sendable, Equatable {
        case code(Int32)
        case signal(Int32)
        case lost(String)
    }

    private struct State {
        var process: Process?
        var requests: FileHandle?
        var nextID = 1
        /// Per run: the pid once forked, and whoever waits for the answer to the launch and for the exit.
        var runs: [Int: Run] = [:]
    }

    private struct Run {
        /// The server process that forked it (a restarted server's loss is not this run's).
        var server: ObjectIdentifier
        var pid: Int32?
        var launched: CheckedContinuation<Result<Int32, NovaError>, Never>?
        var exited: CheckedContinuation<Exit, Never>?
        var exit: Exit?
    }

    struct NovaError: Error, Sendable {
        let message: String
        /// The server itself answered with it (a fork that failed), so the server works.
        var answered = false
    }

    let python: String
    let script: String
    /// Where the FIFOs of running children are made (0700, emptied when a server is made).
    let fifoDirectory: String
    private let state = Mutex(State())
    /// Requests are written whole, one at a time (apart from `state`: a write never waits while answers are read).
    private let writing = Mutex(())

    init(python: String, script: String, fifoDirectory: String) throws {
        self.python = python
        self.script = script
        self.fifoDirectory = fifoDirectory
        // A request written after the server died must be an error, not SIGPIPE ending qbtd.
        _ = Glibc.signal(SIGPIPE, SIG_IGN)
        try? FileManager.default.removeItem(atPath: fifoDirectory)
        guard mkdir(fifoDirectory, 0o700) == 0 else {
            throw NovaError(message: "cannot make \(fifoDirectory): errno \(errno)")
        }
    }

    /// Forks a run: `argv` for `qbtd_run.py`, `environment` laid over the server's, output into the FIFOs at
    /// `stdout`/`stderr` (already open for reading). Returns the run's id, or an error when the server cannot run.
    func launch(argv: [String], environment: [String: String], stdout: String, stderr: String) async -> Result<Int, NovaError> {
        let started: (handle: FileHandle, id: Int, server: ObjectIdentifier)
        switch startIfNeeded() {
        case .failure(let error): return .failure(error)
        case .success(let s): started = s
        }
        let (handle, id) = (started.handle, started.id)
        let request: [String: Any] = ["op": "run", "id": id, "argv": argv, "env": environment, "out": stdout, "err": stderr]
        // A server that does not answer within `answerWait` is ended (its children with it) and the run fails.
        let deadline = Task { [self] in
            try? await Task.sleep(for: Self.answerWait)
            guard !Task.isCancelled else { return }
            answer(id, launched: .failure(NovaError(message: "the search helper did not answer")))
        }
        let launched = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Int32, NovaError>, Never>) in
            state.withLock { $0.runs[id] = Run(server: started.server, launched: continuation) }
            if let failure = send(request, to: handle) { answer(id, launched: .failure(failure)) }
        }
        deadline.cancel()
        switch launched {
        case .success: return .success(id)
        case .failure(let error):
            let forked = state.withLock { $0.runs.removeValue(forKey: id)?.pid != nil }
            // A server that could not take the request or did not answer is replaced (only that one: a newer
            // server's runs go on); one that answered that fork failed keeps its other runs.
            if !forked && !error.answered { shutdown(only: started.server) }
            return .failure(error)
        }
    }

    /// Starts the server now, so the first search does not wait for it.
    func prewarm() { _ = startIfNeeded() }

    /// Waits for a launched run to end (or for the server to be lost).
    func waitForExit(_ id: Int) async -> Exit {
        let exit = await withCheckedContinuation { (continuation: CheckedContinuation<Exit, Never>) in
            let done = state.withLock { s -> Exit? in
                guard var run = s.runs[id] else { return .lost("unknown run") }
                if let exit = run.exit { return exit }
                run.exited = continuation
                s.runs[id] = run
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
        state.withLock { _ = $0.runs.removeValue(forKey: id) }
        return exit
    }

    /// A signal to a run's process group, while the server has not reaped it.
    func signal(_ id: Int, _ signal: Int32) {
        guard let handle = state.withLock({ $0.requests }) else { return }
        _ = send(["op": "kill", "id": id, "signal": Int(signal)], to: handle)
    }

    /// How long a launch waits for the server's answer (a fork takes milliseconds).
    static let answerWait: Duration = .seconds(10)

    /// Ends the server (`only` that one, when given); its children die with it.
    func shutdown(only server: ObjectIdentifier? = nil) {
        let (process, requests) = state.withLock { s -> (Process?, FileHandle?) in
            guard let current = s.process, server == nil || ObjectIdentifier(current) == server else { return (nil, nil) }
            defer { s.process = nil; s.requests = nil }
            return (s.process, s.requests)
        }
        writing.withLock { _ in try? requests?.close() }  // never while a request is being written
        if let process, process.isRunning { process.terminate() }
    }

    // MARK: the server process

    private func startIfNeeded() -> Result<(handle: FileHandle, id: Int, server: ObjectIdentifier), NovaError> {
        NovaProcess.spawnLock.withLock { _ in
            state.withLock { s -> Result<(handle: FileHandle, id: Int, server: ObjectIdentifier), NovaError> in
                let id = s.nextID
                s.nextID += 1
                if let process = s.process, process.isRunning, let requests = s.requests {
                    return .success((requests, id, ObjectIdentifier(process)))
                }
                let process = Process()
                process.executableURL = URL(fileURLWithPath: python)
                process.arguments = ["-I", script]
                let input = Pipe(), output = Pipe()
                process.standardInput = input
                process.standardOutput = output
                process.standardError = FileHandle.nullDevice
                do { try process.run() } catch {
                    return .failure(NovaError(message: "could not start \(python): \(error)"))
                }
                try? input.fileHandleForReading.close()
                try? output.fileHandleForWriting.close()
                // qbtd's ends stay out of every later child: the server sees the end of its stdin when qbtd goes.
                _ = fcntl(input.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
                _ = fcntl(output.fileHandleForReading.fileDescriptor, F_SETFD, FD_CLOEXEC)
                s.process = process
                s.requests = input.fileHandleForWriting
                readAnswers(output.fileHandleForReading, of: process)
                return .success((input.fileHandleForWriting, id, ObjectIdentifier(process)))
            }
        }
    }

    private func send(_ request: [String: Any], to handle: FileHandle) -> NovaError? {
        do {
            var line = try JSONSerialization.data(withJSONObject: request)
            line.append(UInt8(ascii: "\n"))
            // One write per request, serialized: requests from several runs never interleave.
            try writing.withLock { _ in try handle.write(contentsOf: line) }
            return nil
        } catch {
            return NovaError(message: "the search helper is gone: \(error)")
        }
    }

    /// Reads the server's answers on a thread of its own; when it ends, every run still waiting learns it is lost.
    private func readAnswers(_ handle: FileHandle, of process: Process) {
        Thread.detachNewThread { [self] in
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = pending[pending.startIndex..<newline]
                    pending = pending[pending.index(after: newline)...]
                    handleAnswer(line)
                }
            }
            try? handle.close()
            lost(process)
        }
    }

    private func handleAnswer(_ line: Data) {
        guard let message = try? JSONSerialization.jsonObject(with: line) as? [String: Any],
              let id = (message["id"] as? NSNumber)?.intValue else { return }
        if let pid = (message["pid"] as? NSNumber)?.int32Value {
            answer(id, launched: .success(pid))
        } else if let error = message["error"] as? String {
            answer(id, launched: .failure(NovaError(message: error, answered: true)))
        } else if let code = (message["exit"] as? NSNumber)?.int32Value {
            finish(id, .code(code))
        } else if let signal = (message["signal"] as? NSNumber)?.int32Value {
            finish(id, .signal(signal))
        }
    }

    private func answer(_ id: Int, launched: Result<Int32, NovaError>) {
        let waiter = state.withLock { s -> CheckedContinuation<Result<Int32, NovaError>, Never>? in
            guard var run = s.runs[id] else { return nil }
            defer { run.launched = nil; s.runs[id] = run }
            if case .success(let pid) = launched { run.pid = pid }
            return run.launched
        }
        waiter?.resume(returning: launched)
    }

    private func finish(_ id: Int, _ exit: Exit) {
        let waiter = state.withLock { s -> CheckedContinuation<Exit, Never>? in
            guard var run = s.runs[id] else { return nil }
            defer { run.exited = nil; run.exit = exit; s.runs[id] = run }
            return run.exited
        }
        waiter?.resume(returning: exit)
    }

    /// The server ended: launches waiting for an answer fail, runs waiting for an exit are lost.
    private func lost(_ process: Process) {
        let server = ObjectIdentifier(process)
        let waiters = state.withLock { s -> [(Int, Run)] in
            if s.process === process { s.process = nil; s.requests = nil }
            return s.runs.filter { $0.value.server == server }.map { ($0.key, $0.value) }
        }
        for (id, run) in waiters {
            if run.launched != nil { answer(id, launched: .failure(NovaError(message: "the search helper ended"))) }
            guard run.exit == nil else { continue }
            // The child died with the server; what it started (its process group) did not, and may hold its output.
            if let pid = run.pid { kill(-pid, SIGKILL) }
            finish(id, .lost("the search helper ended"))
        }
    }
}
