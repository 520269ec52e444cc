import Foundation
import Synchronization

/// One `search/start`: its results as they arrive and the plugin runs still going. Results come from reader
/// threads and are read by API calls, so the state sits behind a mutex.
public final class SearchJob: Sendable {
    public let id: Int

    private struct State {
        var results: [SearchResult] = []
        var running = 0
        var runs: [NovaProcess] = []
        var tasks: [Task<Void, Never>] = []
        var stopped = false
    }

    private let state = Mutex(State())
    /// When it started (the oldest finished search of a client goes first when it keeps too many).
    let startedAt = ContinuousClock.now

    /// What was asked (5.3's `search/status` reports them): the words, the category and the plugins chosen.
    public let pattern: String
    public let category: String
    public let plugins: [String]

    init(id: Int, pattern: String = "", category: String = "", plugins: [String] = []) {
        self.id = id
        self.pattern = pattern
        self.category = category
        self.plugins = plugins
    }

    /// "Running" while any plugin still runs (qBittorrent's status word).
    public var isRunning: Bool { state.withLock { $0.running > 0 && !$0.stopped } }
    public var total: Int { state.withLock { $0.results.count } }

    /// `limit` ≤ 0: all; a negative `offset` counts from the end; nil when the offset is out of range.
    public func page(limit: Int, offset: Int) -> (results: [SearchResult], total: Int, running: Bool)? {
        state.withLock { s in
            let size = s.results.count
            var start = offset
            if start > size { return nil }
            if start < 0 { start += size }
            if start < 0 { return nil }
            let end = limit > 0 ? min(size, start + limit) : size
            return (Array(s.results[start..<end]), size, s.running > 0 && !s.stopped)
        }
    }

    func append(_ results: [SearchResult]) { state.withLock { $0.results += results } }

    /// Starts one plugin's work; `body` runs until that plugin is done.
    func launch(_ body: @escaping @Sendable () async -> Void) {
        state.withLock { $0.running += 1 }
        let task = Task {
            await body()
            self.state.withLock { $0.running -= 1 }
        }
        state.withLock { $0.tasks.append(task) }
    }

    /// Registers a child process so `stop()` can end it; false if the job was stopped already.
    func track(_ run: NovaProcess) -> Bool {
        state.withLock { s in
            guard !s.stopped else { return false }
            s.runs.append(run)
            return true
        }
    }

    /// Ends every run; results found so far stay.
    public func stop() {
        let (runs, tasks) = state.withLock { s -> ([NovaProcess], [Task<Void, Never>]) in
            s.stopped = true
            return (s.runs, s.tasks)
        }
        for run in runs { run.stop() }
        for task in tasks { task.cancel() }
    }
}
