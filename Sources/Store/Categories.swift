import GRDB

/// A category: its save path ("" = the default save path joined with the name), optionally its own download path
/// (nil = follow the global setting, "" = explicitly none), and its share limits (5.3; -2 and "Default" follow the
/// parent category's, then the global ones).
public struct Category: Sendable, Equatable, Codable {
    public var name: String
    public var savePath: String
    /// nil: follows the global temp path setting.
    public var downloadPath: DownloadPathOption?
    public var shareLimits = CategoryShareLimits()
    /// qbtd's own: in a cluster, the nodes its new torrents go to (the one of them with the most free space); empty:
    /// any node.
    public var nodes: [String] = []

    public init(name: String, savePath: String, downloadPath: DownloadPathOption? = nil,
                shareLimits: CategoryShareLimits = CategoryShareLimits(), nodes: [String] = []) {
        self.name = name
        self.savePath = savePath
        self.downloadPath = downloadPath
        self.shareLimits = shareLimits
        self.nodes = nodes
    }

    /// `nodes` as the store keeps it: the names joined by commas (a node's name has none).
    public var storedNodes: String { nodes.joined(separator: ",") }
    public static func nodes(stored: String) -> [String] { stored.split(separator: ",").map(String.init) }
}

/// qBittorrent 5.3's `ShareLimits` of a category: -2 and "Default" mean "as the parent category, else global".
public struct CategoryShareLimits: Sendable, Equatable, Codable {
    public var ratio: Double = -2
    public var seedingTime = -2
    public var inactiveSeedingTime = -2
    /// "Default", "Stop", "Remove", "RemoveWithContent" or "EnableSuperSeeding".
    public var action = "Default"
    /// "Default", "MatchAny" or "MatchAll".
    public var mode = "Default"

    public init() {}

    /// Whether anything is set (a torrent in the category may then reach a limit the global ones would not set).
    public var any: Bool { ratio != -2 || seedingTime != -2 || inactiveSeedingTime != -2 }
}

/// qBittorrent's `CategoryOptions::DownloadPathOption`: a category's temp path on or off, and its path when on
/// ("" when on: a folder named after the category under the global temp path).
public struct DownloadPathOption: Sendable, Equatable, Codable {
    public var enabled: Bool
    public var path: String

    public init(enabled: Bool, path: String = "") {
        self.enabled = enabled
        self.path = path
    }
}

extension SQLiteStore {
    public func categories() async throws -> [Category] {
        try await db.read { db in
            let sql = """
                SELECT name, save_path, download_path, download_path_enabled, ratio_limit, seeding_time_limit,
                       inactive_seeding_time_limit, share_limit_action, share_limits_mode, nodes FROM categories ORDER BY name
                """
            return try Row.fetchAll(db, sql: sql).map { row in
                let enabled: Bool? = row["download_path_enabled"]
                var limits = CategoryShareLimits()
                limits.ratio = row["ratio_limit"] ?? -2
                limits.seedingTime = row["seeding_time_limit"] ?? -2
                limits.inactiveSeedingTime = row["inactive_seeding_time_limit"] ?? -2
                limits.action = row["share_limit_action"] ?? "Default"
                limits.mode = row["share_limits_mode"] ?? "Default"
                return Category(name: row["name"], savePath: row["save_path"],
                                downloadPath: enabled.map { DownloadPathOption(enabled: $0, path: row["download_path"] ?? "") },
                                shareLimits: limits, nodes: Category.nodes(stored: row["nodes"]))
            }
        }
    }

    /// Returns false if the category already exists.
    @discardableResult
    public func createCategory(_ category: Category) async throws -> Bool {
        try await db.write { db in
            let l = category.shareLimits
            try db.execute(sql: """
                INSERT OR IGNORE INTO categories (name, save_path, download_path, download_path_enabled, ratio_limit,
                    seeding_time_limit, inactive_seeding_time_limit, share_limit_action, share_limits_mode, nodes)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [category.name, category.savePath, category.downloadPath?.path, category.downloadPath?.enabled,
                                 l.ratio, l.seedingTime, l.inactiveSeedingTime, l.action, l.mode, category.storedNodes])
            return db.changesCount > 0
        }
    }

    /// Returns false if there is no such category.
    @discardableResult
    public func editCategory(_ category: Category) async throws -> Bool {
        try await db.write { db in
            let l = category.shareLimits
            try db.execute(sql: """
                UPDATE categories SET save_path = ?, download_path = ?, download_path_enabled = ?, ratio_limit = ?,
                    seeding_time_limit = ?, inactive_seeding_time_limit = ?, share_limit_action = ?, share_limits_mode = ?,
                    nodes = ?
                WHERE name = ?
                """, arguments: [category.savePath, category.downloadPath?.path, category.downloadPath?.enabled, l.ratio,
                                 l.seedingTime, l.inactiveSeedingTime, l.action, l.mode, category.storedNodes, category.name])
            return db.changesCount > 0
        }
    }

    /// Torrents in a removed category become uncategorized.
    public func removeCategories(_ names: [String]) async throws {
        try await db.write { db in
            for name in names { try db.execute(sql: "DELETE FROM categories WHERE name = ?", arguments: [name]) }
        }
    }

    public func tags() async throws -> [String] {
        try await db.read { db in try String.fetchAll(db, sql: "SELECT name FROM tags ORDER BY name") }
    }

    public func createTags(_ names: [String]) async throws {
        try await db.write { db in
            for name in names { try db.execute(sql: "INSERT OR IGNORE INTO tags (name) VALUES (?)", arguments: [name]) }
        }
    }

    /// Deleting a tag takes it off every torrent.
    public func deleteTags(_ names: [String]) async throws {
        try await db.write { db in
            for name in names { try db.execute(sql: "DELETE FROM tags WHERE name = ?", arguments: [name]) }
        }
    }
}
