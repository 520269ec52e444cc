import Foundation
import GRDB

/// A tus upload's durable state. `offset` only ever counts bytes already fsynced to the data file, so a crash
/// after an acknowledgement loses nothing.
public struct TusUploadRecord: Sendable, Equatable {
    public var id: String
    public var length: Int64?
    public var offset: Int64
    public var metadata: [String: String]
    public var destination: String
    public var concat: String?
    public var parts: [String]
    public var createdAt: Int64
    public var expiresAt: Int64
    public var resultPath: String?
    public var sha256: String?

    public init(id: String, length: Int64?, offset: Int64 = 0, metadata: [String: String], destination: String,
                concat: String? = nil, parts: [String] = [], createdAt: Int64, expiresAt: Int64,
                resultPath: String? = nil, sha256: String? = nil) {
        self.id = id; self.length = length; self.offset = offset; self.metadata = metadata
        self.destination = destination; self.concat = concat; self.parts = parts; self.createdAt = createdAt
        self.expiresAt = expiresAt; self.resultPath = resultPath; self.sha256 = sha256
    }

    public var isFinished: Bool { resultPath != nil }
}

/// tus uploads in progress: the part of the store that keeps them (`store.tus`).
struct SQLiteTusStore: TusStore {
    let db: DatabaseQueue
}

extension SQLiteStore {
    public var tus: any TusStore { SQLiteTusStore(db: db) }
}

extension SQLiteTusStore {
    public func tusUpload(_ id: String) async throws -> TusUploadRecord? {
        try await db.read { db in try Row.fetchOne(db, sql: "SELECT * FROM tus_uploads WHERE id = ?", arguments: [id]).map(Self.tusRecord) }
    }

    public func tusUploads() async throws -> [TusUploadRecord] {
        try await db.read { db in try Row.fetchAll(db, sql: "SELECT * FROM tus_uploads ORDER BY created_at").map(Self.tusRecord) }
    }

    public func saveTusUpload(_ r: TusUploadRecord) async throws {
        let metadata = String(decoding: try JSONEncoder().encode(r.metadata), as: UTF8.self)
        let parts = r.parts.isEmpty ? nil : String(decoding: try JSONEncoder().encode(r.parts), as: UTF8.self)
        try await db.write { db in
            try db.execute(sql: """
                INSERT OR REPLACE INTO tus_uploads
                (id, length, offset, metadata, destination, concat, parts, created_at, expires_at, result_path, sha256)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [r.id, r.length, r.offset, metadata, r.destination, r.concat, parts, r.createdAt,
                                 r.expiresAt, r.resultPath, r.sha256])
        }
    }

    public func setTusOffset(_ id: String, offset: Int64, length: Int64?, expiresAt: Int64) async throws {
        try await db.write { db in
            try db.execute(sql: "UPDATE tus_uploads SET offset = ?, length = ?, expires_at = ? WHERE id = ?",
                           arguments: [offset, length, expiresAt, id])
        }
    }

    /// Uploads still receiving (not finished), which hold a data file each.
    public func unfinishedTusUploadCount() async throws -> Int {
        try await db.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM tus_uploads WHERE result_path IS NULL") ?? 0 }
    }

    public func deleteTusUpload(_ id: String) async throws {
        try await db.write { db in try db.execute(sql: "DELETE FROM tus_uploads WHERE id = ?", arguments: [id]) }
    }

    static func tusRecord(_ row: Row) -> TusUploadRecord {
        let metadata = (try? JSONDecoder().decode([String: String].self, from: Data((row["metadata"] as String).utf8))) ?? [:]
        let parts = (row["parts"] as String?).flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? []
        return TusUploadRecord(id: row["id"], length: row["length"], offset: row["offset"], metadata: metadata,
                               destination: row["destination"], concat: row["concat"], parts: parts,
                               createdAt: row["created_at"], expiresAt: row["expires_at"], resultPath: row["result_path"],
                               sha256: row["sha256"])
    }
}
