import ServiceLifecycle

/// Work repeated on a timer for as long as the server runs (a Service whose `run` returns would end the whole
/// server, so this one only returns at the graceful shutdown).
struct Periodic: Service {
    let every: Duration
    let startAtOnce: Bool
    let work: @Sendable () async -> Void

    init(every: Duration, startAtOnce: Bool, _ work: @escaping @Sendable () async -> Void) {
        self.every = every
        self.startAtOnce = startAtOnce
        self.work = work
    }

    func run() async throws {
        if startAtOnce { await work() }
        while !Task.isShuttingDownGracefully {
            do { try await cancelOnGracefulShutdown { try await Task.sleep(for: every) } } catch { return }
            await work()
        }
    }
}
