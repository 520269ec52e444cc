import PostgresNIO
import Store

/// The cluster's RSS feeds, articles and rules.
struct PostgresRSSStore: RSSStore {
    let store: PostgresStore

    func rssItems() async throws -> [RSSItemRecord] {
        try await store.reading { sql in
            try await sql.rows("SELECT * FROM rss_items ORDER BY path") {
                RSSItemRecord(path: try $0.get("path"), uid: try $0.get("uid"), url: try $0.get("url"),
                              refreshInterval: try $0.get("refresh_interval"), etag: try $0.get("etag"),
                              lastModified: try $0.get("last_modified"))
            }
        }
    }

    func replaceRSSItems(_ items: [RSSItemRecord]) async throws {
        try await store.writing { sql in
            try await sql.run("DELETE FROM rss_items")
            for i in items {
                try await sql.run("""
                    INSERT INTO rss_items (path, uid, url, refresh_interval, etag, last_modified)
                    VALUES (\(i.path), \(i.uid), \(i.url), \(i.refreshInterval), \(i.etag), \(i.lastModified))
                    """)
            }
            try await sql.run("DELETE FROM rss_articles WHERE feed_uid NOT IN (SELECT uid FROM rss_items WHERE uid IS NOT NULL)")
        }
    }

    func setRSSValidators(uid: String, etag: String?, lastModified: String?) async throws {
        try await store.writing { sql in
            try await sql.run("UPDATE rss_items SET etag = \(etag), last_modified = \(lastModified) WHERE uid = \(uid)")
        }
    }

    func rssArticles() async throws -> [RSSArticleRecord] {
        try await store.reading { sql in
            try await sql.rows("SELECT * FROM rss_articles ORDER BY feed_uid, date DESC") {
                RSSArticleRecord(feedUID: try $0.get("feed_uid"), id: try $0.get("id"), date: try $0.get("date"),
                                 data: try $0.get("data"), isRead: try $0.get("is_read"))
            }
        }
    }

    func updateRSSArticles(feedUID: String, added: [RSSArticleRecord], removed: [String]) async throws {
        guard !added.isEmpty || !removed.isEmpty else { return }
        try await store.writing { sql in
            try await sql.run("DELETE FROM rss_articles WHERE feed_uid = \(feedUID) AND id = ANY(\(removed))")
            for a in added {
                try await sql.run("""
                    INSERT INTO rss_articles (feed_uid, id, date, data, is_read)
                    SELECT \(a.feedUID), \(a.id), \(a.date), \(a.data), \(a.isRead) WHERE EXISTS (SELECT 1 FROM rss_items WHERE uid = \(a.feedUID))
                    ON CONFLICT (feed_uid, id) DO UPDATE SET date = excluded.date, data = excluded.data
                    """)
            }
        }
    }

    func markRSSArticlesRead(feedUID: String, ids: [String]?) async throws {
        try await store.writing { sql in
            if let ids {
                try await sql.run("UPDATE rss_articles SET is_read = true WHERE feed_uid = \(feedUID) AND id = ANY(\(ids))")
            } else {
                try await sql.run("UPDATE rss_articles SET is_read = true WHERE feed_uid = \(feedUID)")
            }
        }
    }

    func rssRules() async throws -> [RSSRuleRecord] {
        try await store.reading { sql in
            try await sql.rows("SELECT * FROM rss_rules ORDER BY position") {
                RSSRuleRecord(name: try $0.get("name"), position: try $0.get("position"), definition: try $0.get("definition"))
            }
        }
    }

    func saveRSSRule(_ rule: RSSRuleRecord) async throws {
        try await store.writing { sql in
            try await sql.run("""
                INSERT INTO rss_rules (name, position, definition) VALUES (\(rule.name), \(rule.position), \(rule.definition))
                ON CONFLICT (name) DO UPDATE SET definition = excluded.definition, position = excluded.position
                """)
        }
    }

    func renameRSSRule(_ name: String, to newName: String) async throws {
        try await store.writing { sql in try await sql.run("UPDATE rss_rules SET name = \(newName) WHERE name = \(name)") }
    }

    func deleteRSSRule(_ name: String) async throws {
        try await store.writing { sql in try await sql.run("DELETE FROM rss_rules WHERE name = \(name)") }
    }
}
