import Logging
import PostgresNIO
import Store
import Synchronization

/// The store's connection pool, made again when the network to PostgreSQL failed without a word. A connection that
/// fell silent in the middle of a statement says the others are likely dead too (idle in the pool, they would each
/// hold a statement for `PostgresStore.silenceLimit` before it learned), and once the network is back the old pool
/// would wait out its back-off (up to a minute) before connecting again; a new pool does neither.
final class PostgresPool: Sendable {
    private let configuration: PostgresClient.Configuration
    private let logger: Logger
    private let state: Mutex<(client: PostgresClient, running: Task<Void, Never>, madeAt: ContinuousClock.Instant)?>

    init(configuration: PostgresClient.Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        state = Mutex(Self.make(configuration, logger))
    }

    private static func make(_ configuration: PostgresClient.Configuration, _ logger: Logger)
        -> (client: PostgresClient, running: Task<Void, Never>, madeAt: ContinuousClock.Instant) {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        return (client, Task { await client.run() }, .now)
    }

    /// The pool statements lease their connections from now on (a closed store's is shut down).
    var client: PostgresClient {
        get throws(StoreError) {
            guard let client = state.withLock({ $0?.client }) else { throw StoreError.unreachable("the store is closed") }
            return client
        }
    }

    /// A new pool, unless the current one is younger than `PostgresStore.silenceLimit` (`force`: even then, as when the
    /// network came back); the old one is shut down, failing what still waits on it.
    func renew(_ why: String, force: Bool = false) {
        let old: Task<Void, Never>? = state.withLock { state in
            guard let current = state, force || ContinuousClock.now - current.madeAt >= PostgresStore.silenceLimit else {
                return nil
            }
            state = Self.make(configuration, logger)
            return current.running
        }
        guard let old else { return }
        logger.info("new connections to the cluster's database: \(why)")
        old.cancel()
    }

    func close() {
        let running = state.withLock { state in
            defer { state = nil }
            return state?.running
        }
        running?.cancel()
    }
}
