import Foundation
import Logging
import PostgresNIO
import Store
import Synchronization

/// A cluster's shared catalogue in PostgreSQL: the same `Store` as the SQLite file, with each torrent and tus upload
/// owned by one node (`node`); a node's restart reads only its own torrents, while categories, tags, preferences,
/// API keys, RSS and search plugins are the cluster's. Opening it migrates the schema once however many nodes start
/// at the same time, and registers the node in `nodes`.
public final class PostgresStore: Store {
    let pool: PostgresPool
    /// This process's node name.
    public let node: String
    let logger: Logger
    /// The other nodes' notifications, on a connection of their own.
    let listener: PostgresListener

    public init(url: String, node: String, logger: Logger = Logger(label: "qbtd.store")) async throws {
        let location = try PostgresLocation(url)
        try await Self.firstContact(location, logger: logger)
        var configuration = location.client
        configuration.options.minimumConnections = 1
        // The pool's background says only errors: its run() starts in a task of its own, and the first lease may come
        // before it has (a warning the pool prints, and then waits for it).
        var background = logger
        background.logLevel = max(logger.logLevel, .error)
        pool = PostgresPool(configuration: configuration, logger: background)
        self.node = node
        self.logger = logger
        listener = PostgresListener(configuration: location.connection, channels: Self.channels, logger: logger,
                                    lost: { [pool] in pool.renew("the connection listening for the other nodes fell silent") },
                                    regained: { [pool] in pool.renew("the network to PostgreSQL is back", force: true) })
        listener.start()
        do {
            try await PostgresSchema.migrate(self)
            try await publish(NodeRecord(name: node, address: "", startedAt: Int64(Date().timeIntervalSince1970)))
        } catch {
            close()
            throw error
        }
    }

    /// One connection and a `SELECT 1` before the pool: the pool retries a refused connection for a minute before it
    /// gives up with no reason, where this says at once which database and why.
    static func firstContact(_ location: PostgresLocation, logger: Logger) async throws(StoreError) {
        do {
            let connection = try await PostgresConnection.connect(configuration: location.connection, id: 0, logger: logger)
            do { try await connection.query("SELECT 1", logger: logger).consume() } catch {
                try? await connection.close()
                throw error
            }
            try? await connection.close()
        } catch {
            let reason = (error as? PSQLError).map { psql in
                psql.serverInfo?[.message] ?? psql.underlying.map { String(describing: $0) } ?? "\(psql.code)"
            } ?? String(describing: error)
            throw StoreError.unreachable("no answer from \(location.place) as \(location.user): \(reason); is PostgreSQL running there, and does it let this user in?")
        }
    }

    /// Closes the connections; the store answers no more.
    public func close() {
        listener.close()
        pool.close()
    }

    deinit { close() }

    public func appliedMigrations() async throws -> [String] {
        try await reading { sql in try await sql.rows("SELECT name FROM qbtd_migrations ORDER BY version") { try $0.get("name") } }
    }

    public var apiKeys: any APIKeyStore { PostgresAPIKeyStore(store: self) }
    public var rss: any RSSStore { PostgresRSSStore(store: self) }
    public var searchPlugins: any SearchPluginStore { PostgresSearchPluginStore(store: self) }
    public var tus: any TusStore { PostgresTusStore(store: self) }

    // MARK: statements

    /// How long a statement waits for a connection before it fails: while PostgreSQL is down or restarting the pool
    /// would hold it for a minute, and with it an HTTP answer (a change that cannot be recorded is refused instead).
    static let connectionWait: Duration = .seconds(5)

    /// How long a statement that has its connection may go without a word from PostgreSQL (an answer, a row) before
    /// the connection is given up. A network that drops packets without a word (a cut cable, a partition) would hold
    /// it, and the HTTP answer waiting on it, for as long as TCP retries: a quarter of an hour.
    static let silenceLimit: Duration = .seconds(10)

    /// Reads outside a transaction.
    func reading<T: Sendable>(_ body: (SQL) async throws -> T) async throws -> T {
        try await leasing { leased in
            try await pool.client.withConnection { connection in
                leased.set(connection)
                try Task.checkCancellation()  // given up meanwhile (the watch threw): the connection goes back unused
                return try await body(SQL(connection: connection, logger: logger, leased: leased))
            }
        }
    }

    /// Writes in one transaction: all of them or none. The connection is the watch's before `BEGIN`, which may be
    /// the statement that meets a silent network.
    @discardableResult
    func writing<T: Sendable>(_ body: (SQL) async throws -> T) async throws -> T {
        try await leasing { leased in
            try await pool.client.withConnection { connection in
                leased.set(connection)
                try Task.checkCancellation()
                return try await connection.withTransaction(logger: logger) { connection in
                    try await body(SQL(connection: connection, logger: logger, leased: leased))
                }
            }
        }
    }

    /// Runs `operation`, failing it when it has no connection after `connectionWait`, or when its connection has been
    /// silent for `silenceLimit` (once it has one, it runs to its end however long it takes while PostgreSQL answers:
    /// a restart's read of every torrent).
    private func leasing<T: Sendable>(_ operation: (Leased) async throws -> T) async throws -> T {
        try await withoutActuallyEscaping(operation) { operation in
            let run = UncheckedBox(operation), leased = Leased()
            return try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask { try await run.value(leased) }
                group.addTask { [pool] in
                    try await Self.watch(leased, pool: pool)
                    return nil
                }
                while let next = try await group.next() {
                    if let value = next {
                        group.cancelAll()
                        return value
                    }
                }
                throw CancellationError()
            }
        }
    }

    /// Until cancelled (the statement ended): throws when the statement has no connection after `connectionWait`, or
    /// when its connection has been silent for `silenceLimit`, which it then closes, so that the statement ends at once
    /// and PostgreSQL rolls its transaction back (and the pool is made again: `PostgresPool`).
    private static func watch(_ leased: Leased, pool: PostgresPool) async throws {
        try await Task.sleep(for: connectionWait)
        guard leased.connection != nil else {
            throw StoreError.unreachable("no connection within \(connectionWait): is PostgreSQL up and reachable from this node? (nothing was changed)")
        }
        while let (connection, last) = leased.connection {
            let quiet = ContinuousClock.now - last
            guard quiet >= silenceLimit else {
                try await Task.sleep(for: silenceLimit - quiet)
                continue
            }
            _ = connection.close() as EventLoopFuture<Void>  // not awaited: the channel closes at once, failing what waits on it
            pool.renew("a connection fell silent in the middle of a statement")  // the pool's others likely did too
            throw StoreError.unreachable("""
                no word for \(silenceLimit) in the middle of a statement, so this node gave \
                its connection up: a change it carried was not recorded (unless PostgreSQL took its last step just before); \
                look again before you retry, and check the network between this node and PostgreSQL
                """)
        }
    }
}

/// A statement's connection once it has one, and when PostgreSQL last said anything on it.
final class Leased: Sendable {
    private let state = Mutex<(connection: PostgresConnection, last: ContinuousClock.Instant)?>(nil)
    func set(_ connection: PostgresConnection) { state.withLock { $0 = (connection, .now) } }
    /// PostgreSQL answered.
    func heard() { state.withLock { $0?.last = .now } }
    var connection: (PostgresConnection, ContinuousClock.Instant)? { state.withLock { $0.map { ($0.connection, $0.last) } } }
}

/// A closure carried into a child task that ends before its caller returns (`withoutActuallyEscaping`).
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// One connection's statements; each answer and row counts as PostgreSQL having said something (`Leased.heard`).
struct SQL {
    let connection: PostgresConnection
    let logger: Logger
    let leased: Leased

    func run(_ query: PostgresQuery) async throws {
        _ = try await rows(query) { _ in () }
    }

    /// The rows a statement returns, each read by `read`.
    func rows<T>(_ query: PostgresQuery, _ read: (PostgresRandomAccessRow) throws -> T) async throws -> [T] {
        var out: [T] = []
        try Task.checkCancellation()  // the statement was given up: the rest of its body is not sent
        leased.heard()
        for try await row in try await connection.query(query, logger: logger) {
            leased.heard()
            out.append(try read(row.makeRandomAccess()))
        }
        leased.heard()
        return out
    }

    /// After a write to categories or tags that changed `rows` rows: wakes the other nodes to read them again (the
    /// notification goes out when the transaction commits). Returns whether any changed.
    @discardableResult
    func labelsChanged(_ rows: Int, by node: String) async throws -> Bool {
        guard rows > 0 else { return false }
        try await run("SELECT pg_notify(\(PostgresStore.labelsChannel), \(node))")
        return true
    }

    /// After a write to the API keys (not their last use): wakes the other nodes to read them again, so that a key
    /// revoked on one node stops opening the others at once.
    func keysChanged(by node: String) async throws {
        try await run("SELECT pg_notify(\(PostgresStore.keysChannel), \(node))")
    }

    /// How many rows a statement returned (a `RETURNING` clause's: whether an insert or update took).
    func count(_ query: PostgresQuery) async throws -> Int {
        try await rows(query) { _ in () }.count
    }
}

extension PostgresRowSequence {
    func consume() async throws { for try await _ in self {} }
}

extension PostgresRandomAccessRow {
    func get<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) throws -> T {
        try self[column].decode(T.self)
    }
}
