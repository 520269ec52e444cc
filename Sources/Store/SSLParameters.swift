import GRDB

/// What an SSL torrent presents to its peers (5.0's `torrents/SSLParameters`), as PEM text.
public struct SSLParameters: Sendable, Equatable {
    public var certificate: String
    public var privateKey: String
    public var dhParams: String

    public init(certificate: String, privateKey: String, dhParams: String) {
        self.certificate = certificate
        self.privateKey = privateKey
        self.dhParams = dhParams
    }
}

extension SQLiteStore {
    public func sslParameters(_ id: String) async throws -> SSLParameters? {
        try await db.read { db in
            try Row.fetchOne(db, sql: "SELECT certificate, private_key, dh_params FROM torrent_ssl WHERE torrent_id = ?",
                             arguments: [id]).map {
                SSLParameters(certificate: $0["certificate"], privateKey: $0["private_key"], dhParams: $0["dh_params"])
            }
        }
    }

    /// Every torrent's SSL parameters, read once at start instead of one query per torrent.
    public func allSSLParameters() async throws -> [String: SSLParameters] {
        try await db.read { db in
            var out: [String: SSLParameters] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT torrent_id, certificate, private_key, dh_params FROM torrent_ssl") {
                out[row["torrent_id"]] = SSLParameters(certificate: row["certificate"], privateKey: row["private_key"],
                                                       dhParams: row["dh_params"])
            }
            return out
        }
    }

    public func setSSLParameters(_ id: String, _ p: SSLParameters) async throws {
        try await db.write { db in
            try db.execute(sql: """
                INSERT INTO torrent_ssl (torrent_id, certificate, private_key, dh_params) VALUES (?, ?, ?, ?)
                ON CONFLICT(torrent_id) DO UPDATE SET certificate = excluded.certificate,
                    private_key = excluded.private_key, dh_params = excluded.dh_params
                """, arguments: [id, p.certificate, p.privateKey, p.dhParams])
        }
    }
}
