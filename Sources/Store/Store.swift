import Foundation

/// What qbtd keeps across restarts: torrents with their .torrent and fast-resume data, categories, tags, preferences,
/// SSL parameters, API keys, RSS, search plugins and tus uploads. Two implementations answer it: `SQLiteStore` (the
/// embedded default, one file) and `PostgresStore` (a cluster's shared catalogue), and the store's tests run on both.
/// Every write is one transaction: a crash leaves whole rows or none.
public protocol Store: Sendable {
    /// The applied schema versions, oldest first.
    func appliedMigrations() async throws -> [String]

    // MARK: torrents

    /// Inserts torrents with their tags in one transaction (an add of many files): all of them or none; a missing
    /// category or tag is created in the same transaction.
    func insert(_ items: [(record: TorrentRecord, tags: [String])]) async throws
    /// Every torrent this process runs, with its tags, in the order they were added.
    func torrents() async throws -> [StoredTorrent]
    /// Every torrent this process runs, with its tags but without its .torrent and resume data (a restart reads those
    /// per batch, with `sources(of:)`): the queued ones first, in their queue's order, then the rest as added.
    func torrentsWithoutSources() async throws -> [StoredTorrent]
    /// Records where torrents stand in libtorrent's download queue (-1: not queued), for the next start's order.
    func saveQueuePositions(_ items: [(id: String, position: Int)]) async throws
    /// The .torrent and fast-resume data of these torrents (absent ones left out).
    func sources(of ids: [String]) async throws -> [String: (metainfo: Data?, resumeData: Data?)]
    func torrent(_ id: String) async throws -> StoredTorrent?
    /// Changes one stored torrent; a no-op if it is gone.
    func updateTorrent(_ id: String, _ change: @escaping @Sendable (inout TorrentRecord) -> Void) async throws
    func deleteTorrent(_ id: String) async throws
    /// Stores many torrents' fast-resume data in one transaction; a torrent removed meanwhile is skipped.
    func saveResumeData(_ items: [(id: String, data: Data)]) async throws
    /// Stores the .torrent bytes of a magnet once its metadata arrives.
    func saveMetainfo(_ id: String, _ data: Data, name: String) async throws
    func addTags(_ tags: [String], to ids: [String]) async throws
    /// Takes these tags (all of them when nil) off these torrents.
    func removeTags(_ tags: [String]?, from ids: [String]) async throws

    // MARK: categories and tags

    func categories() async throws -> [Category]
    /// Returns false if the category already exists.
    @discardableResult func createCategory(_ category: Category) async throws -> Bool
    /// Returns false if there is no such category.
    @discardableResult func editCategory(_ category: Category) async throws -> Bool
    /// Torrents in a removed category become uncategorized.
    func removeCategories(_ names: [String]) async throws
    func tags() async throws -> [String]
    func createTags(_ names: [String]) async throws
    /// Deleting a tag takes it off every torrent.
    func deleteTags(_ names: [String]) async throws

    // MARK: preferences (JSON text by key)

    /// Every stored preference as raw JSON text, by key.
    func preferences() async throws -> [String: String]
    func preferenceText(_ key: String) async throws -> String?
    /// Writes several preferences' JSON text in one transaction.
    func setPreferenceTexts(_ encoded: [String: String]) async throws

    // MARK: SSL parameters of torrents

    func sslParameters(_ id: String) async throws -> SSLParameters?
    /// Every torrent's SSL parameters, read once at start instead of one query per torrent.
    func allSSLParameters() async throws -> [String: SSLParameters]
    func setSSLParameters(_ id: String, _ p: SSLParameters) async throws

    // MARK: the parts kept apart

    var apiKeys: any APIKeyStore { get }
    var rss: any RSSStore { get }
    var searchPlugins: any SearchPluginStore { get }
    var tus: any TusStore { get }
}

extension Store {
    public func insert(_ record: TorrentRecord, tags: [String]) async throws {
        try await insert([(record, tags)])
    }

    /// Stores fast-resume data; ignored if the torrent was removed meanwhile.
    public func saveResumeData(_ id: String, _ data: Data) async throws {
        try await saveResumeData([(id, data)])
    }

    public func preference<T: Decodable>(_ key: String, as type: T.Type = T.self) async throws -> T? {
        guard let text = try await preferenceText(key) else { return nil }
        return try JSONDecoder().decode(T.self, from: Data(text.utf8))
    }

    /// Writes several preferences in one transaction.
    public func setPreferences(_ values: [String: any Encodable & Sendable]) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        try await setPreferenceTexts(try values.mapValues { String(decoding: try encoder.encode($0), as: UTF8.self) })
    }
}

/// API keys (their hashes) and scopes (`store.apiKeys`).
public protocol APIKeyStore: Sendable {
    func apiKeys() async throws -> [APIKeyRecord]
    func insertAPIKey(_ key: APIKeyRecord) async throws
    /// Returns false when there was no such key.
    @discardableResult func deleteAPIKey(id: String) async throws -> Bool
    func setAPIKeyScope(id: String, scope: String) async throws
    func touchAPIKey(id: String, at time: Int64) async throws
}

/// RSS feeds, articles and download rules (`store.rss`).
public protocol RSSStore: Sendable {
    func rssItems() async throws -> [RSSItemRecord]
    /// Replaces the whole tree in one transaction; articles of feeds that are gone go too.
    func replaceRSSItems(_ items: [RSSItemRecord]) async throws
    /// A feed's validators for its next conditional GET.
    func setRSSValidators(uid: String, etag: String?, lastModified: String?) async throws
    func rssArticles() async throws -> [RSSArticleRecord]
    /// After a refresh: the new articles in (a row that exists keeps its read state), the evicted ones out.
    func updateRSSArticles(feedUID: String, added: [RSSArticleRecord], removed: [String]) async throws
    /// Marks articles read: the listed ids of one feed, or all of the feed's when `ids` is nil.
    func markRSSArticlesRead(feedUID: String, ids: [String]?) async throws
    func rssRules() async throws -> [RSSRuleRecord]
    func saveRSSRule(_ rule: RSSRuleRecord) async throws
    func renameRSSRule(_ name: String, to newName: String) async throws
    func deleteRSSRule(_ name: String) async throws
}

/// Installed search plugins (`store.searchPlugins`).
public protocol SearchPluginStore: Sendable {
    func searchPlugins() async throws -> [SearchPluginRecord]
    /// Inserts or replaces (an update installs over the old version, keeping its enabled state).
    func saveSearchPlugin(_ p: SearchPluginRecord) async throws
    func setSearchPluginsEnabled(_ names: [String], _ enabled: Bool) async throws
    func deleteSearchPlugins(_ names: [String]) async throws
}

/// tus uploads in progress (`store.tus`): each process keeps its own, whose data files are on its disk.
public protocol TusStore: Sendable {
    func tusUpload(_ id: String) async throws -> TusUploadRecord?
    func tusUploads() async throws -> [TusUploadRecord]
    func saveTusUpload(_ r: TusUploadRecord) async throws
    func setTusOffset(_ id: String, offset: Int64, length: Int64?, expiresAt: Int64) async throws
    /// Uploads still receiving (not finished), which hold a data file each.
    func unfinishedTusUploadCount() async throws -> Int
    func deleteTusUpload(_ id: String) async throws
}
