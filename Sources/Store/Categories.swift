import GRDB

public struct Category: Sendable, Equatable, Codable {
    public var name: String
    public var savePath: String
    public init(name: String, savePath: String) {
        self.name = name
        self.savePath = savePath
    }
}

extension Store {
    public func categories() async throws -> [Category] {
        try await db.read { db in
            try Row.fetchAll(db, sql: "SELECT name, save_path FROM categories ORDER BY name").map {
                Category(name: $0["name"], savePath: $0["save_path"])
            }
        }
    }

    /// Returns false if the category already exists.
    @discardableResult
    public func createCategory(_ category: Category) async throws -> Bool {
        try await db.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO categories (name, save_path) VALUES (?, ?)",
                           arguments: [category.name, category.savePath])
            return db.changesCount > 0
        }
    }

    /// Returns false if there is no such category.
    @discardableResult
    public func editCategory(_ category: Category) async throws -> Bool {
        try await db.write { db in
            try db.execute(sql: "UPDATE categories SET save_path = ? WHERE name = ?", arguments: [category.savePath, category.name])
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
