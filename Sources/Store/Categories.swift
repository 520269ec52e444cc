import GRDB

/// A category: its save path ("" = the default save path joined with the name) and, optionally, its own
/// download path (nil = follow the global setting, "" = explicitly none).
public struct Category: Sendable, Equatable, Codable {
    public var name: String
    public var savePath: String
    /// nil: follows the global temp path setting.
    public var downloadPath: DownloadPathOption?

    public init(name: String, savePath: String, downloadPath: DownloadPathOption? = nil) {
        self.name = name
        self.savePath = savePath
        self.downloadPath = downloadPath
    }
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

extension Store {
    public func categories() async throws -> [Category] {
        try await db.read { db in
            let sql = "SELECT name, save_path, download_path, download_path_enabled FROM categories ORDER BY name"
            return try Row.fetchAll(db, sql: sql).map { row in
                let enabled: Bool? = row["download_path_enabled"]
                return Category(name: row["name"], savePath: row["save_path"],
                                downloadPath: enabled.map { DownloadPathOption(enabled: $0, path: row["download_path"] ?? "") })
            }
        }
    }

    /// Returns false if the category already exists.
    @discardableResult
    public func createCategory(_ category: Category) async throws -> Bool {
        try await db.write { db in
            try db.execute(sql: """
                INSERT OR IGNORE INTO categories (name, save_path, download_path, download_path_enabled) VALUES (?, ?, ?, ?)
                """, arguments: [category.name, category.savePath, category.downloadPath?.path, category.downloadPath?.enabled])
            return db.changesCount > 0
        }
    }

    /// Returns false if there is no such category.
    @discardableResult
    public func editCategory(_ category: Category) async throws -> Bool {
        try await db.write { db in
            try db.execute(sql: "UPDATE categories SET save_path = ?, download_path = ?, download_path_enabled = ? WHERE name = ?",
                           arguments: [category.savePath, category.downloadPath?.path, category.downloadPath?.enabled,
                                       category.name])
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
