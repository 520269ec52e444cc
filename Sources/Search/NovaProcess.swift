import Foundation
import Synchronization

/// One nova3 engine run in its own `python3 -I` child process (argv only, never a shell), its stdout read
/// line by line as it arrives. The run ends when the engine exits, on `stop()`, at the timeout, or when it has
/// printed more than `maxOutput` bytes; a stopped process gets SIGTERM, then SIGKILL.
final class NovaProcess: @unchecked Sendable {
    enum Ending: Equatable, Sendable {
        case finished
        case failed(String)
        case timedOut
        case tooMuchOutput
        case stopped
    }

    private let process = Process()
    /// Held from the creation of a child's pipes until it is spawned. Foundation's pipes (and the socket it watches
    /// a child's exit on) are not close-on-exec, so a child spawned by another thread in between inherited them and
    /// held them open: a plugin that had exited was then seen to end only when a sibling (one that hangs) was killed.
    private static let spawnLock = Mutex(())
    /// Why it was ended, when something ended it (the first reason wins).
    private let ending = Mutex<Ending?>(nil)

    /// `environment` is laid over qbtd's own (the proxy variables qBittorrent gives its plugins).
    init(python: String, script: String, arguments: [String], environment: [String: String] = [:]) {
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-I", script] + arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        process.standardInput = FileHandle.nullDevice
    }

    /// Runs to the end, handing the complete stdout lines of each read to `onLines` (on a reader thread, in order).
    func run(timeout: Duration, maxOutput: Int, onLines: @escaping @Sendable ([Substring]) -> Void) async -> Ending {
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
        case .failure(let error): return .failed("could not start \(process.executableURL?.path ?? "python"): \(error)")
        }
        let stderrTail = StderrTail(err.fileHandleForReading)
        let reading = readLines(out.fileHandleForReading, maxOutput: maxOutput, onLines: onLines)
        let watchdog = Task {
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { self.end(.timedOut) }
        }
        for await _ in exited.stream {}
        watchdog.cancel()
        await reading.value
        if let reason = ending.withLock({ $0 }) { return reason }
        if process.terminationReason == .exit && process.terminationStatus == 0 { return .finished }
        let how = process.terminationReason == .exit ? "exit code \(process.terminationStatus)" : "signal \(process.terminationStatus)"
        let tail = stderrTail.text
        return .failed(tail.isEmpty ? how : "\(how): \(tail)")
    }

    func stop() { end(.stopped) }

    static func droppingCR(_ line: Substring) -> Substring { line.last == "\r" ? line.dropLast() : line }

    /// The first reason to end wins; the process gets SIGTERM and, 2 s later if still there, SIGKILL.
    private func end(_ reason: Ending) {
        ending.withLock { if $0 == nil { $0 = reason } }
        guard process.isRunning else { return }
        let pid = process.processIdentifier
        process.terminate()
        DispatchQueue.global().asyncAfter(deadline: .now() + 2) { [process] in
            if process.isRunning { kill(pid, SIGKILL) }
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

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty {
                    try? handle.close()
                    return
                }
                buffer.withLock { b in
                    b.append(chunk)
                    if b.count > 500 { b = b.suffix(500) }
                }
            }
        }
    }

    var text: String {
        String(decoding: buffer.withLock { $0 }, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            .split(whereSeparator: \.isNewline).suffix(3).joined(separator: " / ")
    }
}
