import PostgresNIO

/// The catalogue's schema in PostgreSQL, versioned like the SQLite file's (never edit a shipped migration: add the
/// next). Nodes that start together take one advisory lock, so each migration runs once.
enum PostgresSchema {
    /// `pg_advisory_xact_lock`'s key for qbtd's migrations ("qbtd" in ASCII).
    static let lockKey: Int64 = 0x7162_7464

    static let migrations: [(name: String, statements: [PostgresQuery])] = [
        ("pg1: the catalogue and its nodes", [
            """
            CREATE TABLE nodes (
                name TEXT COLLATE "C" PRIMARY KEY, address TEXT NOT NULL DEFAULT '', started_at BIGINT NOT NULL,
                heartbeat_at DOUBLE PRECISION NOT NULL, torrents BIGINT NOT NULL DEFAULT 0,
                download_rate BIGINT NOT NULL DEFAULT 0, upload_rate BIGINT NOT NULL DEFAULT 0,
                save_path TEXT NOT NULL DEFAULT '', free_space BIGINT NOT NULL DEFAULT 0,
                stopped BOOLEAN NOT NULL DEFAULT false)
            """,
            """
            CREATE TABLE categories (
                name TEXT COLLATE "C" PRIMARY KEY, save_path TEXT NOT NULL DEFAULT '',
                download_path TEXT, download_path_enabled BOOLEAN,
                ratio_limit DOUBLE PRECISION, seeding_time_limit BIGINT, inactive_seeding_time_limit BIGINT,
                share_limit_action TEXT, share_limits_mode TEXT)
            """,
            #"CREATE TABLE tags (name TEXT COLLATE "C" PRIMARY KEY)"#,
            """
            CREATE TABLE torrents (
                id TEXT COLLATE "C" PRIMARY KEY, node TEXT NOT NULL, name TEXT NOT NULL, metainfo BYTEA, magnet TEXT,
                save_path TEXT NOT NULL,
                category TEXT COLLATE "C" REFERENCES categories ON DELETE SET NULL ON UPDATE CASCADE,
                added_on BIGINT NOT NULL, completed_on BIGINT,
                stopped BOOLEAN NOT NULL DEFAULT false, sequential BOOLEAN NOT NULL DEFAULT false,
                first_last_piece_prio BOOLEAN NOT NULL DEFAULT false,
                upload_limit BIGINT NOT NULL DEFAULT 0, download_limit BIGINT NOT NULL DEFAULT 0,
                ratio_limit DOUBLE PRECISION NOT NULL DEFAULT -2, seeding_time_limit BIGINT NOT NULL DEFAULT -2,
                inactive_seeding_time_limit BIGINT NOT NULL DEFAULT -2, auto_tmm BOOLEAN NOT NULL DEFAULT false,
                force_start BOOLEAN NOT NULL DEFAULT false, super_seeding BOOLEAN NOT NULL DEFAULT false,
                download_path TEXT, stop_condition TEXT, comment TEXT, share_limit_action TEXT, share_limits_mode TEXT,
                resume_data BYTEA,
                CHECK (metainfo IS NOT NULL OR magnet IS NOT NULL))
            """,
            "CREATE INDEX torrents_by_node ON torrents (node, added_on, id)",
            """
            CREATE TABLE torrent_tags (
                torrent_id TEXT COLLATE "C" NOT NULL REFERENCES torrents ON DELETE CASCADE,
                tag TEXT COLLATE "C" NOT NULL REFERENCES tags ON DELETE CASCADE ON UPDATE CASCADE,
                PRIMARY KEY (torrent_id, tag))
            """,
            """
            CREATE TABLE torrent_queue (
                torrent_id TEXT COLLATE "C" PRIMARY KEY REFERENCES torrents ON DELETE CASCADE, position BIGINT NOT NULL)
            """,
            """
            CREATE TABLE torrent_ssl (
                torrent_id TEXT COLLATE "C" PRIMARY KEY REFERENCES torrents ON DELETE CASCADE,
                certificate TEXT NOT NULL, private_key TEXT NOT NULL, dh_params TEXT NOT NULL)
            """,
            "CREATE TABLE preferences (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            """
            CREATE TABLE api_keys (
                id TEXT PRIMARY KEY, name TEXT NOT NULL, key_hash TEXT NOT NULL UNIQUE, created_at BIGINT NOT NULL,
                last_used_at BIGINT, scope TEXT NOT NULL DEFAULT 'full')
            """,
            """
            CREATE TABLE search_plugins (
                name TEXT COLLATE "C" PRIMARY KEY, kind TEXT NOT NULL, enabled BOOLEAN NOT NULL DEFAULT true,
                version TEXT NOT NULL DEFAULT '', full_name TEXT NOT NULL, url TEXT NOT NULL,
                categories TEXT NOT NULL DEFAULT '[]', api_key TEXT, source TEXT, installed_at BIGINT NOT NULL)
            """,
            """
            CREATE TABLE tus_uploads (
                id TEXT PRIMARY KEY, node TEXT NOT NULL, length BIGINT, "offset" BIGINT NOT NULL DEFAULT 0,
                metadata TEXT NOT NULL DEFAULT '{}', destination TEXT NOT NULL, concat TEXT, parts TEXT,
                created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, result_path TEXT, sha256 TEXT)
            """,
            """
            CREATE TABLE rss_items (
                path TEXT COLLATE "C" PRIMARY KEY, uid TEXT, url TEXT UNIQUE, refresh_interval BIGINT NOT NULL DEFAULT 0,
                etag TEXT, last_modified TEXT)
            """,
            """
            CREATE TABLE rss_articles (
                feed_uid TEXT COLLATE "C" NOT NULL, id TEXT NOT NULL, date DOUBLE PRECISION NOT NULL, data TEXT NOT NULL,
                is_read BOOLEAN NOT NULL DEFAULT false, PRIMARY KEY (feed_uid, id))
            """,
            "CREATE TABLE rss_rules (name TEXT PRIMARY KEY, position BIGINT NOT NULL, definition TEXT NOT NULL)",
            // Each node's torrents as its listings show them, for the other nodes' listings: a row per torrent,
            // re-stamped from one sequence at each change (a removed torrent keeps its row, without a body).
            "CREATE SEQUENCE torrent_views_seq",
            """
            CREATE TABLE torrent_views (
                id TEXT COLLATE "C" PRIMARY KEY, node TEXT NOT NULL, seq BIGINT NOT NULL, body BYTEA)
            """,
            "CREATE INDEX torrent_views_by_seq ON torrent_views (seq)",
            // Calls for a torrent another node runs: the sender's request, then the owner's answer.
            """
            CREATE TABLE commands (
                id BIGSERIAL PRIMARY KEY, target TEXT NOT NULL, sender TEXT NOT NULL, request BYTEA NOT NULL,
                taken BOOLEAN NOT NULL DEFAULT false, answer BYTEA,
                created_at DOUBLE PRECISION NOT NULL DEFAULT extract(epoch FROM clock_timestamp()))
            """,
            "CREATE INDEX commands_waiting ON commands (target, id) WHERE NOT taken",
        ]),
        ("pg2: the global limits divided between the nodes, each node's lease, categories pinned to nodes, shared sessions", [
            // What each node runs with and what its queue wants (its heartbeat), and what the dividing node gave it
            // (`node_limits`; a NULL number of slots: the preference's own).
            """
            ALTER TABLE nodes ADD COLUMN download_share DOUBLE PRECISION NOT NULL DEFAULT 1,
                              ADD COLUMN upload_share DOUBLE PRECISION NOT NULL DEFAULT 1,
                              ADD COLUMN want_downloads INTEGER NOT NULL DEFAULT 0,
                              ADD COLUMN want_seeds INTEGER NOT NULL DEFAULT 0,
                              ADD COLUMN lease BIGINT NOT NULL DEFAULT 15
            """,
            """
            CREATE TABLE node_limits (
                node TEXT PRIMARY KEY, download DOUBLE PRECISION NOT NULL, upload DOUBLE PRECISION NOT NULL,
                active_downloads INTEGER, active_seeds INTEGER, active_torrents INTEGER)
            """,
            "ALTER TABLE categories ADD COLUMN nodes TEXT NOT NULL DEFAULT ''",  // names joined by commas; '': any node
            // WebUI sessions, shared: a login on one node opens every node (the SID's digest only).
            "CREATE TABLE web_sessions (digest TEXT PRIMARY KEY, last_seen DOUBLE PRECISION NOT NULL)",
        ]),
        ("pg3: torrents moving between nodes", [
            // A torrent on its way (qbtd/moveToNode): gone with the torrent; `done` once the target runs it, until the
            // source let go of it. Each node's move session listens at `move_peer` (HOST:PORT).
            """
            CREATE TABLE torrent_moves (
                id TEXT COLLATE "C" PRIMARY KEY REFERENCES torrents ON DELETE CASCADE, source TEXT NOT NULL,
                target TEXT NOT NULL, delete_files BOOLEAN NOT NULL DEFAULT false, done BOOLEAN NOT NULL DEFAULT false,
                progress DOUBLE PRECISION NOT NULL DEFAULT 0,
                started_at DOUBLE PRECISION NOT NULL DEFAULT extract(epoch FROM clock_timestamp()))
            """,
            "ALTER TABLE nodes ADD COLUMN move_peer TEXT NOT NULL DEFAULT ''",
        ]),
        // Each node's transfer totals, with its heartbeat: the cluster's `transfer/info` and `server_state` add them.
        ("pg4: the nodes' transfer totals", [
            """
            ALTER TABLE nodes ADD COLUMN session_download BIGINT NOT NULL DEFAULT 0,
                ADD COLUMN session_upload BIGINT NOT NULL DEFAULT 0, ADD COLUMN alltime_download BIGINT NOT NULL DEFAULT 0,
                ADD COLUMN alltime_upload BIGINT NOT NULL DEFAULT 0
            """,
        ]),
    ]

    /// Applies the missing migrations in one transaction under the advisory lock.
    static func migrate(_ store: PostgresStore) async throws {
        try await store.writing { sql in
            try await sql.run("SELECT pg_advisory_xact_lock(\(lockKey))")
            try await sql.run("""
                CREATE TABLE IF NOT EXISTS qbtd_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL,
                                                            applied_at BIGINT NOT NULL)
                """)
            let applied = Set(try await sql.rows("SELECT version FROM qbtd_migrations") { try $0.get("version", as: Int.self) })
            for (index, migration) in migrations.enumerated() where !applied.contains(index + 1) {
                for statement in migration.statements { try await sql.run(statement) }
                try await sql.run("""
                    INSERT INTO qbtd_migrations (version, name, applied_at)
                    VALUES (\(index + 1), \(migration.name), extract(epoch FROM now())::bigint)
                    """)
            }
        }
    }
}
