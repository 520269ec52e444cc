import Foundation
import PostgresNIO
import Store

/// This node's tus uploads: their data files are on its own disk, so each node sees only its own.
struct PostgresTusStore: TusStore {
    let store: PostgresStore

    func tusUpload(_ id: String) async throws -> TusUploadRecord? {
        try await store.reading { sql in
            try await sql.rows("SELECT * FROM tus_uploads WHERE id = \(id) AND node = \(store.node)", Self.record).first
        }
    }

    func tusUploads() async throws -> [TusUploadRecord] {
        try await store.reading { sql in
            try await sql.rows("SELECT * FROM tus_uploads WHERE node = \(store.node) ORDER BY created_at", Self.record)
        }
    }

    func saveTusUpload(_ r: TusUploadRecord) async throws {
        let metadata = String(decoding: try JSONEncoder().encode(r.metadata), as: UTF8.self)
        let parts = r.parts.isEmpty ? nil : String(decoding: try JSONEncoder().encode(r.parts), as: UTF8.self)
        try await store.writing { sql in
            try await sql.run("""
                INSERT INTO tus_uploads
                (id, node, length, "offset", metadata, destination, concat, parts, created_at, expires_at, result_path, sha256)
                VALUES (\(r.id), \(store.node), \(r.length), \(r.offset), \(metadata), \(r.destination), \(r.concat), \(parts),
                        \(r.createdAt), \(r.expiresAt), \(r.resultPath), \(r.sha256))
                ON CONFLICT (id) DO UPDATE SET node = excluded.node, length = excluded.length, "offset" = excluded."offset",
                    metadata = excluded.metadata, destination = excluded.destination, concat = excluded.concat,
                    parts = excluded.parts, created_at = excluded.created_at, expires_at = excluded.expires_at,
                    result_path = excluded.result_path, sha256 = excluded.sha256
                """)
        }
    }

    func setTusOffset(_ id: String, offset: Int64, length: Int64?, expiresAt: Int64) async throws {
        try await store.writing { sql in
            try await sql.run("""
                UPDATE tus_uploads SET "offset" = \(offset), length = \(length), expires_at = \(expiresAt)
                WHERE id = \(id) AND node = \(store.node)
                """)
        }
    }

    func unfinishedTusUploadCount() async throws -> Int {
        try await store.reading { sql in
            try await sql.rows("SELECT count(*) AS n FROM tus_uploads WHERE result_path IS NULL AND node = \(store.node)") {
                try $0.get("n", as: Int.self)
            }.first ?? 0
        }
    }

    func deleteTusUpload(_ id: String) async throws {
        try await store.writing { sql in try await sql.run("DELETE FROM tus_uploads WHERE id = \(id) AND node = \(store.node)") }
    }

    static func record(_ row: PostgresRandomAccessRow) throws -> TusUploadRecord {
        let metadata = (try? JSONDecoder().decode([String: String].self, from: Data(try row.get("metadata", as: String.self).utf8))) ?? [:]
        let parts = try row.get("parts", as: String?.self).flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? []
        return TusUploadRecord(id: try row.get("id"), length: try row.get("length"), offset: try row.get("offset"), metadata: metadata,
                               destination: try row.get("destination"), concat: try row.get("concat"), parts: parts,
                               createdAt: try row.get("created_at"), expiresAt: try row.get("expires_at"),
                               resultPath: try row.get("result_path"), sha256: try row.get("sha256"))
    }
}
