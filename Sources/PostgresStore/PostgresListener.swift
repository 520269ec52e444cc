import Logging
import PostgresNIO
import Store
import Synchronization

/// The catalogue's notifications: every channel a node follows, `LISTEN`ed from the start on one connection of their
/// own (not one of the pool's, which statements need), and watched. A `SELECT 1` goes out every `beat`, and a connection that
/// says nothing for `PostgresStore.silenceLimit` is closed and made again: a network that drops packets without a
/// word would otherwise leave it listening to nothing for as long as TCP retries (a quarter of an hour), and the
/// node deaf to the others after the network came back. After each new connection every subscriber gets "", so
/// that it reads what it may have missed meanwhile.
final class PostgresListener: Sendable {
    /// How often the connection is asked something while it listens.
    static let beat: Duration = .seconds(2)
    /// How long to wait before connecting again.
    static let retry: Duration = .seconds(1)

    private let configuration: PostgresConnection.Configuration
    /// Every channel, listened to from the first connection on (a follower that subscribes later misses nothing sent
    /// after the store opened: calls relayed to a node that has just started are heard at once).
    private let channels: [String]
    private let logger: Logger
    /// Told when the connection is lost without a word, and when one is made again after that.
    private let lost: @Sendable () -> Void
    private let regained: @Sendable () -> Void
    private let state = Mutex<State>(State())

    private struct State {
        var subscribers: [String: [Int: AsyncStream<String>.Continuation]] = [:]
        var nextID = 0
        var running: Task<Void, Never>?
        var closed = false
    }

    init(configuration: PostgresConnection.Configuration, channels: [String], logger: Logger,
         lost: @escaping @Sendable () -> Void, regained: @escaping @Sendable () -> Void) {
        self.configuration = configuration
        self.channels = channels
        self.logger = logger
        self.lost = lost
        self.regained = regained
    }

    /// The payloads of `NOTIFY channel`, and "" after a new connection; ends when the listener closes.
    func subscribe(_ channel: String) -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(256))
        let id: Int? = state.withLock { state in
            guard !state.closed else { return nil }
            state.nextID += 1
            state.subscribers[channel, default: [:]][state.nextID] = continuation
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers[channel]?.removeValue(forKey: id) }
        }
        return stream
    }

    func close() {
        let (running, subscribers) = state.withLock { state in
            state.closed = true
            defer { state.subscribers = [:] }
            return (state.running, state.subscribers.values.flatMap(\.values))
        }
        running?.cancel()
        for continuation in subscribers { continuation.finish() }
    }

    /// Connects and listens (again after each failure) until closed.
    func start() {
        state.withLock { state in
            guard state.running == nil, !state.closed else { return }
            state.running = Task { [self] in await run() }
        }
    }

    private func deliver(_ payload: String, on channel: String?) {
        state.withLock { state in
            if let channel {
                state.subscribers[channel]?.values.forEach { $0.yield(payload) }
            } else {
                for subscribers in state.subscribers.values { subscribers.values.forEach { $0.yield(payload) } }
            }
        }
    }

    private func run() async {
        var attempt = 0
        var outage: ContinuousClock.Instant?
        while !Task.isCancelled {
            if attempt > 0 { try? await Task.sleep(for: Self.retry) }
            attempt += 1
            do {
                try await listenOnce(again: attempt > 1, id: attempt) {
                    if let at = outage {
                        logger.info("listening to the other nodes again, \(ContinuousClock.now - at) after losing them")
                        regained()
                    }
                    outage = nil
                }
            } catch {
                guard !Task.isCancelled else { break }
                if outage == nil {
                    logger.warning("stopped hearing the other nodes (trying again every \(Self.retry)): \(error)")
                    outage = .now
                    lost()
                }
            }
        }
    }

    /// One connection, until it fails or falls silent: LISTEN on every channel.
    private func listenOnce(again: Bool, id: Int, connected: () -> Void) async throws {
        let connection = try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
        connected()
        do {
            try await listen(on: connection, again: again)
        } catch {
            try? await connection.close()  // closed before it goes: a connection must be
            throw error
        }
    }

    /// Throws when the connection fails, falls silent or is to be made again; never returns otherwise.
    private func listen(on connection: PostgresConnection, again: Bool) async throws {
        let heard = Heard()
        try await withTaskCancellationHandler {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for channel in channels {
                    group.addTask {
                        try await connection.listen(on: channel) { notifications in
                            if again { self.deliver("", on: channel) }  // LISTEN is in force: what came before, read
                            for try await notification in notifications {
                                heard.now()
                                self.deliver(notification.payload, on: channel)
                            }
                        }
                        throw StoreError.unreachable("the connection listening on \(channel) ended")
                    }
                }
                group.addTask { [logger] in
                    while true {
                        try await Task.sleep(for: Self.beat)
                        try await connection.query("SELECT 1", logger: logger).consume()
                        heard.now()
                    }
                }
                group.addTask {
                    while true {
                        let quiet = ContinuousClock.now - heard.last
                        if quiet >= PostgresStore.silenceLimit {
                            throw StoreError.unreachable("no word from PostgreSQL for \(PostgresStore.silenceLimit) while listening")
                        }
                        try await Task.sleep(for: PostgresStore.silenceLimit - quiet)
                    }
                }
                do {
                    try await group.next()
                } catch {
                    _ = connection.close() as EventLoopFuture<Void>  // ends the other tasks (they wait on it)
                    throw error
                }
            }
        } onCancel: {
            _ = connection.close() as EventLoopFuture<Void>
        }
    }
}

/// When PostgreSQL last said something on the listening connection.
private final class Heard: Sendable {
    private let at = Mutex(ContinuousClock.now)
    func now() { at.withLock { $0 = .now } }
    var last: ContinuousClock.Instant { at.withLock { $0 } }
}
