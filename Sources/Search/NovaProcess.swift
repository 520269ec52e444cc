import Foundation
import Synchronization

/// One nova3 engine run in a `python3 -I` child (forked by `NovaForkServer`, or a process of its own; argv only,
/// never a shell), its stdout read line by line as it arrives. The run ends when the engine exits, on `stop()`, at
/// the timeout, or when it has printed more than `maxOutput` bytes; a stopped child gets SIGTERM, then SIGKILL.
final class NovaProcess: @unchecked Sendable {
    enum Ending: Equatable {
        case finished
        case failed(String)
        case timedOut
        case tooMuchOutput
        case stopped
    }

    /// What `end` signals: a process of its own, or a child of the fork server.
    private enum Child {
        case process(Process)
        case forked(NovaForkServer, Int)
    }

    private let python: String
    private let script: String
    private let arguments: [String]
    private let environment: [String: String]
    /// When set, the run is forked by it (`arguments` are then `qbtd_run.py`'s); a process of its own otherwise, or
    /// when the server cannot run.
    private let server: NovaForkServer?
    /// Held from the creation of a child's pipes until it is spawned. Foundation's pipes (and the socket it watches
    /// a child's exit on) are not close-on-exec, so a child spawned by another thread in between inherited them and
    /// held them open: a plugin that had exited was then seen to end only when a sibling (one that hangs) was killed.
    static let spawnLock = Mutex(())
    /// Why it was ended, when something ended it (the first reason wins).
    private let ending = Mutex<Ending?>(nil)
    private let child = Mutex<Child?>(nil)
    /// Set once the child is known to have exited (a forked one: no signal after that, its pid may be reused).
    private let exited = Mutex(false)

    /// `environment` is laid over qbtd's own (the proxy variables qBittorrent gives its plugins).
    init(python: String, script: String, arguments: [String], environment: [String: String] = [:],
         server: NovaForkServer? = nil) {
        self.python = python
        self.script = script
        self.arguments = arguments
        self.environment = environment
        self.server = server
    }

    /// Runs to the end, handing the complete stdout lines of each read to `onLines` (on a reader thread, in order).
    func run(timeout: Duration, maxOutput: Int, onLines: @escaping @Sendable ([Substring]) -> Void) async -> Ending {
        if let server, let ending = await runForked(server, timeout: timeout, maxOutput: maxOutput, onLines: onLines) {
            return ending
        }
        return await runSpawned(timeout: timeout, maxOutput: maxOutput, onLines: onLines)
    }

    /// A child of the fork server writing into two FIFOs; nil when the server could not fork it.
    private func runForked(_ server: NovaForkServer, timeout: Duration, maxOutput: Int,
                           onLines: @escaping @Sendable ([Substring]) -> Void) async -> Ending? {
        let base = server.fifoDirectory + "/" + UUID().uuidString
        guard let out = FIFO(base + ".out") else { return nil }
        guard let err = FIFO(base + ".err") else { out.discard(); return nil }
        defer { unlink(out.path); unlink(err.path) }
        let id: Int
        switch await server.launch(argv: arguments, environment: environment, stdout: out.path, stderr: err.path) {
        case .failure:
            out.discard()
            err.discard()
            return nil
        case .success(let launched): id = launched
        }
        child.withLock { $0 = .forked(server, id) }
        if ending.withLock({ $0 }) != nil { end(.stopped) }  // stopped while it was being forked
        let stderrTail = StderrTail(err.reader)
        let reading = readLines(out.reader, maxOutput: maxOutput, onLines: onLines)
        let watchdog = watch(timeout)
        let exit = await server.waitForExit(id)
        exited.withLock { $0 = true }
        // The child's own ends are closed: with qbtd's closed too, the readers see the end of the output.
        out.closeWriter()
        err.closeWriter()
        watchdog.cancel()
        await reading.value
        if let reason = ending.withLock({ $0 }) { return reason }
        let how: String
        switch exit {
        case .code(0): return .finished
        case .code(let code): how = "exit code \(code)"
        case .signal(let signal): how = "signal \(signal)"
        case .lost(let why): how = why
        }
        return .failed(await stderrTail.describing(how))
    }

    /// A `python3 -I` process of its own.
    private func runSpawned(timeout: Duration, maxOutput: Int, onLines: @escaping @Sendable ([Substring]) -> Void) async -> Ending {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-I", script] + arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        process.standardInput = FileHandle.nullDevice
        let exited = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in exited.continuation.finish() }
        let spawned = Self.spawnLock.withLock { _ -> Result<(out: Pipe, err: Pipe), any Error> in
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            return Result { try process.run() }.map { (out, err) }
        }
        let out: Pipe, err: Pipe
        switch spawned {
        case .success(let pipes): (out, err) = pipes
        case .failure(let error): return .failed("could not start \(python): \(error)")
        }
        child.withLock { $0 = .process(process) }
        if ending.withLock({ $0 }) != nil { end(.stopped) }
        let stderrTail = StderrTail(err.fileHandleForReading)
        let reading = readLines(out.fileHandleForReading, maxOutput: maxOutput, onLines: onLines)
        let watchdog = watch(timeout)
        for await _ in exited.stream {}
        self.exited.withLock { $0 = true }
        watchdog.cancel()
        await reading.value
        if let reason = ending.withLock({ $0 }) { return reason }
        if process.terminationReason == .exit && process.terminationStatus == 0 { return .finished }
        let how = process.terminationReason == .exit ? "exit code \(process.terminationStatus)" : "signal \(process.terminationStatus)"
        return .failed(await stderrTail.describing(how))
    }

    func stop() { end(.stopped) }

    /// Ends the run with `.timedOut` unless cancelled first.
    private func watch(_ timeout: Duration) -> Task<Void, Never> {
        Task {
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { self.end(.timedOut) }
        }
    }

    static func droppingCR(_ line: Substring) -> Substring { line.last == "\r" ? line.dropLast() : line }

    /// The first reason to end wins; the child gets SIGTERM and, 2 s later if still there, SIGKILL.
    private func end(_ reason: Ending) {
        ending.withLock { if $0 == nil { $0 = reason } }
        guard !exited.withLock({ $0 }) else { return }
        switch child.withLock({ $0 }) {
        case nil:
            return  // not started yet: it is signalled as soon as it is
        case .process(let process):
            guard process.isRunning else { return }
            let pid = process.processIdentifier
            process.terminate()
            DispatchQueue.global().asyncAfter(deadline: .now() + 2) { [process] in
                if process.isRunning { kill(pid, SIGKILL) }
            }
        case .forked(let server, let id):
            server.signal(id, SIGTERM)
            DispatchQueue.global().asyncAfter(deadline: .now() + 2) { [self] in
                if !exited.withLock({ $0 }) { server.signal(id, SIGKILL) }
            }
        }
    }

    /// Reads stdout on a thread of its own (blocking reads stay off the concurrency pool).
    private func readLines(_ handle: FileHandle, maxOutput: Int, onLines: @escaping @Sendable ([Substring]) -> Void) -> Task<Void, Never> {
        let done = AsyncStream<Void>.makeStream()
        Thread.detachNewThread {
            var pending: [UInt8] = [], total = 0
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                total += chunk.count
                if total > maxOutput {
                    self.end(.tooMuchOutput)
                    break
                }
                // Everything up to the chunk's last newline is whole lines; the rest waits for the next read.
                guard let last = chunk.lastIndex(of: UInt8(ascii: "\n")) else {
                    pending.append(contentsOf: chunk)
                    continue
                }
                pending.append(contentsOf: chunk[..<last])
                let text = String(decoding: pending, as: UTF8.self)
                pending = Array(chunk[chunk.index(after: last)...])
                onLines(text.split(separator: "\n", omittingEmptySubsequences: false).map(Self.droppingCR))
            }
            if !pending.isEmpty, total <= maxOutput { onLines([Self.droppingCR(Substring(String(decoding: pending, as: UTF8.self)))]) }
            // Drain whatever is left so the child never blocks on a full pipe.
            while !handle.availableData.isEmpty {}
            try? handle.close()  // the job keeps this run until it is deleted: its descriptors must not wait with it
            done.continuation.finish()
        }
        return Task { for await _ in done.stream {} }
    }
}

/// The last 500 bytes a child wrote to stderr, for the log line that says why it failed.
private final class StderrTail: Sendable {
    private let buffer = Mutex(Data())
    /// Finishes when the reader has seen the end of stderr.
    private let ended = AsyncStream<Void>.makeStream()

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty {
                    try? handle.close()
                    ended.continuation.finish()
                    return
                }
                buffer.withLock { b in
                    b.append(chunk)
                    if b.count > 500 { b = b.suffix(500) }
                }
            }
        }
    }

    /// How the child ended, with the last lines it wrote to stderr when there are some: read to the end first (the
    /// reader thread may still hold the last lines when the child has exited), waiting at most a second for it (a
    /// process the plugin started may hold stderr open).
    func describing(_ how: String) async -> String {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { for await _ in self.ended.stream {} }
            group.addTask { try? await Task.sleep(for: .seconds(1)) }
            await group.next()
            group.cancelAll()
        }
        let tail = text
        return tail.isEmpty ? how : "\(how): \(tail)"
    }

    var text: String {
        String(decoding: buffer.withLock { $0 }, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            .split(whereSeparator: \.isNewline).suffix(3).joined(separator: " / ")
    }
}

/// A FIFO a forked child opens as its stdout or stderr: qbtd holds its read end and, until the child has exited, a
/// write end too, so a read never sees the end of the output before the child even opened it.
private struct FIFO {
    let path: String
    let reader: FileHandle
    private let writer: Int32

    init?(_ path: String) {
        guard mkfifo(path, 0o600) == 0 else { return nil }
        let r = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        let w = r < 0 ? -1 : open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard r >= 0, w >= 0 else {
            if r >= 0 { close(r) }
            unlink(path)
            return nil
        }
        _ = fcntl(r, F_SETFL, fcntl(r, F_GETFL) & ~O_NONBLOCK)
        self.path = path
        self.reader = FileHandle(fileDescriptor: r, closeOnDealloc: false)
        self.writer = w
    }

    func closeWriter() { close(writer) }

    /// Unused after all: the FIFO removed first (a late child can no longer find it), then both ends closed.
    func discard() {
        unlink(path)
        close(writer)
        try? reader.close()
    }
}
