import Foundation
import GRDB

/// The embedded default store: qbtd's SQLite file, owned by this process alone. Every write is one transaction.
public final class SQLiteStore: Store {
    let db: DatabaseQueue

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            // WAL keeps readers off the writer's back; FULL makes an acknowledged write survive power loss too.
            try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL")
        }
        db = try DatabaseQueue(path: path, configuration: configuration)
        try Self.migrator.migrate(db)
    }

    /// The applied schema versions, oldest first.
    public func appliedMigrations() throws -> [String] {
        try db.read { try Self.migrator.appliedMigrations($0) }
    }
}
