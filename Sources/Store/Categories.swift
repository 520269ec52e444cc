import GRDB

/// A category: its save path ("" = the default save path joined with the name) and, optionally, its own
/// download path (nil = follow the global setting, "" = explicitly none).
public struct Category: Sendable, Equatable, Codable {
    public var name: String
    public var savePath: String
    public var downloadPath: String?

    public init(name: String, savePath: String, downloadPath: String? = nil) {
        self.name = name
        self.savePath = savePath
        self.downloadPath = downloadPath
    }
}

extension Store {
    public func categories() async throws -> [Category] {
        try await db.read { db in
            try Row.fetchAll(db, sql: "SELECT name, save_path, download_path FROM categories ORDER BY name").map {
                Category(name: $0["name"], savePath: $0["save_path"], downloadPath: $0["download_path"])
            }
        }
    }

    /// Returns false if the category already exists.
    @discardableResult
    public func createCategory(_ category: Category) async throws -> Bool {
        try await db.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO categories (name, save_path, download_path) VALUES (?, ?, ?)",
                           arguments: [category.name, category.savePath, category.downloadPath])
            return db.changesCount > 0
        }
    }

    /// Returns false if there is no such category.
    @discardableResult
    public func editCategory(_ category: Category) async throws -> Bool {
        try await db.write { db in
            try db.execute(sql: "UPDATE categories SET save_path = ?, download_path = ? WHERE name = ?",
                           arguments: [category.savePath, category.downloadPath, category.name])
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
