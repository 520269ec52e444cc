import GRDB

extension SQLiteStore {
    /// Versioned schema. Never edit a shipped migration: add the next one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: torrents, categories, tags, preferences") { db in
            try db.create(table: "categories") { t in
                t.primaryKey("name", .text)
                t.column("save_path", .text).notNull().defaults(to: "")
            }
            try db.create(table: "tags") { t in
                t.primaryKey("name", .text)
            }
            try db.create(table: "torrents") { t in
                t.primaryKey("id", .text)
                t.column("name", .text).notNull()
                t.column("metainfo", .blob)
                t.column("magnet", .text)
                t.column("save_path", .text).notNull()
                t.column("category", .text).references("categories", onDelete: .setNull, onUpdate: .cascade)
                t.column("added_on", .integer).notNull()
                t.column("completed_on", .integer)
                t.column("stopped", .boolean).notNull().defaults(to: false)
                t.column("sequential", .boolean).notNull().defaults(to: false)
                t.column("first_last_piece_prio", .boolean).notNull().defaults(to: false)
                t.column("upload_limit", .integer).notNull().defaults(to: 0)
                t.column("download_limit", .integer).notNull().defaults(to: 0)
                t.column("ratio_limit", .double).notNull().defaults(to: -2)
                t.column("seeding_time_limit", .integer).notNull().defaults(to: -2)
                t.column("inactive_seeding_time_limit", .integer).notNull().defaults(to: -2)
                t.column("auto_tmm", .boolean).notNull().defaults(to: false)
                t.column("resume_data", .blob)
                t.check(sql: "metainfo IS NOT NULL OR magnet IS NOT NULL")
            }
            try db.create(table: "torrent_tags") { t in
                t.column("torrent_id", .text).notNull().references("torrents", onDelete: .cascade)
                t.column("tag", .text).notNull().references("tags", onDelete: .cascade, onUpdate: .cascade)
                t.primaryKey(["torrent_id", "tag"])
            }
            try db.create(table: "preferences") { t in
                t.primaryKey("key", .text)
                t.column("value", .text).notNull()  // JSON
            }
        }
        migrator.registerMigration("v2: API keys, category download paths, forced and super-seeding torrents") { db in
            try db.alter(table: "torrents") { t in
                t.add(column: "force_start", .boolean).notNull().defaults(to: false)
                t.add(column: "super_seeding", .boolean).notNull().defaults(to: false)
                t.add(column: "download_path", .text)  // where it downloads before moving to save_path; NULL = none
            }
            try db.alter(table: "categories") { t in
                t.add(column: "download_path", .text)  // NULL = follow the global setting, '' = disabled
            }
            try db.create(table: "api_keys") { t in
                t.primaryKey("id", .text)
                t.column("name", .text).notNull()
                t.column("key_hash", .text).notNull().unique()  // SHA-256 hex of the key; the key itself is never stored
                t.column("created_at", .integer).notNull()
                t.column("last_used_at", .integer)
            }
        }
        migrator.registerMigration("v3: SSL parameters of torrents") { db in
            try db.create(table: "torrent_ssl") { t in
                t.primaryKey("torrent_id", .text).references("torrents", onDelete: .cascade)
                t.column("certificate", .text).notNull()
                t.column("private_key", .text).notNull()
                t.column("dh_params", .text).notNull()
            }
        }
        migrator.registerMigration("v4: search plugins") { db in
            try db.create(table: "search_plugins") { t in
                t.primaryKey("name", .text)
                t.column("kind", .text).notNull()  // nova3 (a Python file in <data>/nova3/engines) or torznab
                t.column("enabled", .boolean).notNull().defaults(to: true)
                t.column("version", .text).notNull().defaults(to: "")
                t.column("full_name", .text).notNull()
                t.column("url", .text).notNull()
                t.column("categories", .text).notNull().defaults(to: "[]")  // JSON list of qBittorrent category ids
                t.column("api_key", .text)  // torznab only
                t.column("source", .text)  // where a nova3 plugin was installed from (for updatePlugins)
                t.column("installed_at", .integer).notNull()
            }
        }
        migrator.registerMigration("v5: tus uploads") { db in
            try db.create(table: "tus_uploads") { t in
                t.primaryKey("id", .text)
                t.column("length", .integer)  // NULL while the length is deferred
                t.column("offset", .integer).notNull().defaults(to: 0)  // bytes fsynced to the data file
                t.column("metadata", .text).notNull().defaults(to: "{}")  // JSON of Upload-Metadata (decoded values)
                t.column("destination", .text).notNull()  // the folder the finished file lands in
                t.column("concat", .text)  // NULL, "partial" or "final"
                t.column("parts", .text)  // final uploads: JSON list of partial upload ids
                t.column("created_at", .integer).notNull()
                t.column("expires_at", .integer).notNull()
                t.column("result_path", .text)  // where the finished file landed
                t.column("sha256", .text)  // of the finished file
            }
        }
        migrator.registerMigration("v6: stop conditions of torrents") { db in
            try db.alter(table: "torrents") { t in
                t.add(column: "stop_condition", .text)  // NULL, "MetadataReceived" or "FilesChecked"
            }
        }
        migrator.registerMigration("v7: comments set on torrents") { db in
            try db.alter(table: "torrents") { t in
                t.add(column: "comment", .text)  // NULL: the .torrent's own comment
            }
        }
        migrator.registerMigration("v8: share limit actions of torrents") { db in
            try db.alter(table: "torrents") { t in
                t.add(column: "share_limit_action", .text)  // NULL: the global max_ratio_act
            }
        }
        migrator.registerMigration("v9: category download paths on with no path of their own") { db in
            try db.alter(table: "categories") { t in
                t.add(column: "download_path_enabled", .boolean)  // NULL = follow the global setting
            }
            // v2 kept '' for "off" and a path for "on".
            try db.execute(sql: """
                UPDATE categories SET download_path_enabled = (download_path <> '') WHERE download_path IS NOT NULL
                """)
        }
        migrator.registerMigration("v10: RSS feeds, articles and auto-download rules") { db in
            // The item tree: a folder has no url; a feed has its uid and url. Paths use qBittorrent's backslash.
            try db.create(table: "rss_items") { t in
                t.primaryKey("path", .text)
                t.column("uid", .text)
                t.column("url", .text).unique()
                t.column("refresh_interval", .integer).notNull().defaults(to: 0)  // seconds; 0 = the global interval
                t.column("etag", .text)  // the last answer's validators, for conditional GETs
                t.column("last_modified", .text)
            }
            try db.create(table: "rss_articles") { t in
                t.column("feed_uid", .text).notNull()
                t.column("id", .text).notNull()
                t.column("date", .double).notNull()  // seconds since 1970, for the newest-first order
                t.column("data", .text).notNull()  // the article's JSON record, as rss/items shows it (without isRead)
                t.column("is_read", .boolean).notNull().defaults(to: false)
                t.primaryKey(["feed_uid", "id"])
            }
            try db.create(table: "rss_rules") { t in
                t.primaryKey("name", .text)
                t.column("position", .integer).notNull()  // the order rules were added in (ties of priority)
                t.column("definition", .text).notNull()  // the rule's JSON, as rss/rules shows it
            }
        }
        migrator.registerMigration("v11: API key scopes") { db in
            try db.alter(table: "api_keys") { t in
                t.add(column: "scope", .text).notNull().defaults(to: "full")  // full, read-only, music, stream, upload
            }
        }
        migrator.registerMigration("v12: share limits modes of torrents") { db in
            try db.alter(table: "torrents") { t in
                t.add(column: "share_limits_mode", .text)  // NULL: the global share_limits_mode
            }
        }
        migrator.registerMigration("v13: share limits of categories") { db in
            try db.alter(table: "categories") { t in  // NULL: -2 or "Default", the parent category's, then global
                t.add(column: "ratio_limit", .double)
                t.add(column: "seeding_time_limit", .integer)
                t.add(column: "inactive_seeding_time_limit", .integer)
                t.add(column: "share_limit_action", .text)
                t.add(column: "share_limits_mode", .text)
            }
        }
        migrator.registerMigration("v14: queue positions") { db in
            // libtorrent's download queue at the last clean stop, apart from the torrents' wide rows (a stop that
            // moved every position rewrites these small rows, not every torrent's .torrent and resume data).
            try db.create(table: "torrent_queue", options: [.withoutRowID]) { t in
                t.primaryKey("torrent_id", .text).references("torrents", onDelete: .cascade)
                t.column("position", .integer).notNull()
            }
        }
        migrator.registerMigration("v15: categories pinned to a cluster's nodes") { db in
            try db.alter(table: "categories") { t in
                t.add(column: "nodes", .text).notNull().defaults(to: "")  // names joined by commas; "": any node
            }
        }
        return migrator
    }
}
