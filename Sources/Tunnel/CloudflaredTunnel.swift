import Foundation
import Logging

/// Runs `cloudflared` as a child for as long as qbtd runs: reads its public address from its output, starts it
/// again when it dies (1 s, then doubling to 60 s; back to 1 s after a minute up), and stops it with qbtd. Without
/// the program it says how to install it, once, and qbtd keeps serving locally.
public actor CloudflaredTunnel {
    public enum State: Sendable, Equatable {
        case starting
        case up(url: String?)
        case restarting(after: Int)
        case missing
        case stopped
    }

    public let configuration: TunnelConfiguration
    private let logger: Logger
    private let onEvent: @Sendable (String, Bool) -> Void
    public private(set) var state: State = .starting
    public private(set) var publicURL: String?
    private var child: ChildProcess?
    private var stopping = false

    /// `onEvent(message, isWarning)`: for qbtd's event log (`log/main`).
    public init(configuration: TunnelConfiguration, logger: Logger, onEvent: @escaping @Sendable (String, Bool) -> Void = { _, _ in }) {
        self.configuration = configuration
        self.logger = logger
        self.onEvent = onEvent
        publicURL = configuration.publicURL
    }

    /// Where the program is: a path as given, else the first match on PATH.
    nonisolated static func locate(_ name: String, path: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        for folder in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Keeps the tunnel up until `stop()`; returns at once when cloudflared is missing.
    public func run() async {
        guard let program = Self.locate(configuration.executable) else {
            state = .missing
            logger.error("tunnel: \(TunnelConfiguration.installHelp)")
            onEvent("Tunnel: " + TunnelConfiguration.installHelp, true)
            return
        }
        var backoff = 1
        while !stopping {
            let started = ContinuousClock.now
            let status = await runOnce(program)
            if stopping { break }
            // A minute up counts as healthy: the next failure waits 1 s again.
            if ContinuousClock.now - started > .seconds(60) { backoff = 1 }
            state = .restarting(after: backoff)
            logger.warning("tunnel: cloudflared exited (\(status)); starting it again in \(backoff) s")
            onEvent("Tunnel: cloudflared exited (\(status)); starting it again in \(backoff) s", true)
            try? await Task.sleep(for: .seconds(backoff))
            backoff = min(backoff * 2, 60)
        }
        state = .stopped
    }

    /// Stops the child (SIGTERM, then SIGKILL after 10 s) and the loop.
    public func stop() async {
        stopping = true
        guard let child, child.isRunning else { return }
        child.signal(SIGTERM)
        for _ in 0..<100 where child.isRunning { try? await Task.sleep(for: .milliseconds(100)) }
        child.signal(SIGKILL)
    }

    /// Runs the program once; returns how it ended.
    private func runOnce(_ program: String) async -> String {
        let process: ChildProcess
        do { process = try ChildProcess(executable: program, arguments: configuration.arguments) } catch {
            return "could not start \(program): \(error)"
        }
        let (lines, sink) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let splitter = LineSplitter(sink)
        // Read on Foundation's own thread, never on Swift's cooperative pool.
        process.output.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                splitter.finish()
            } else {
                splitter.feed(data)
            }
        }
        child = process
        state = .up(url: configuration.publicURL)
        logger.info("tunnel: started cloudflared \(configuration.arguments.joined(separator: " ")) (pid \(process.pid))")
        for await line in lines {
            guard configuration.publicURL == nil, let url = TunnelOutput.publicURL(in: line), url != publicURL else { continue }
            publicURL = url
            state = .up(url: url)
            logger.notice("tunnel: the music library is reachable at \(url)")
            onEvent("Tunnel up: \(url)", false)
        }
        let status = await process.exited()
        child = nil
        if configuration.publicURL == nil { publicURL = nil }
        return "status \(status)"
    }
}

/// Cuts a byte stream into lines for an AsyncStream (called from Foundation's reading thread).
final class LineSplitter: @unchecked Sendable {
    private let lock = NSLock()
    private var pending = Data()
    private let sink: AsyncStream<String>.Continuation

    init(_ sink: AsyncStream<String>.Continuation) { self.sink = sink }

    func feed(_ data: Data) {
        lock.lock()
        defer { lock.unlock() }
        pending.append(data)
        while let newline = pending.firstIndex(of: 0x0A) {
            sink.yield(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
            pending.removeSubrange(pending.startIndex...newline)
        }
        // A line with no end in sight (64 KiB) is cut, so the buffer stays bounded.
        if pending.count > 65_536 {
            sink.yield(String(decoding: pending, as: UTF8.self))
            pending.removeAll()
        }
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if !pending.isEmpty { sink.yield(String(decoding: pending, as: UTF8.self)) }
        pending.removeAll()
        sink.finish()
    }
}
