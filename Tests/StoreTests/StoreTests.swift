import Foundation
import XCTest

@testable import Store

/// The store's contract, held on both implementations (`onEachStore`: SQLite, then PostgreSQL).
final class StoreTests: XCTestCase {
    func record(_ id: String, category: String? = nil) -> TorrentRecord {
        TorrentRecord(id: id, name: "n-\(id)", metainfo: Data([1, 2, 3]), magnet: nil, savePath: "/tmp/x", category: category)
    }

    func testMigrationsAreVersionedAndIdempotent() throws {
        let expected = ["v1: torrents, categories, tags, preferences",
                        "v2: API keys, category download paths, forced and super-seeding torrents",
                        "v3: SSL parameters of torrents", "v4: search plugins", "v5: tus uploads",
                        "v6: stop conditions of torrents", "v7: comments set on torrents",
                        "v8: share limit actions of torrents", "v9: category download paths on with no path of their own",
                        "v10: RSS feeds, articles and auto-download rules", "v11: API key scopes",
                        "v12: share limits modes of torrents", "v13: share limits of categories", "v14: queue positions",
                        "v15: categories pinned to a cluster's nodes"]
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertEqual(try SQLiteStore(path: path).appliedMigrations(), expected)
        XCTAssertEqual(try SQLiteStore(path: path).appliedMigrations().count, expected.count)
    }

    func testARestartReadsTheQueuedTorrentsInTheirQueuesOrder() async throws {
        try await onEachStore { kind in
            let store = try await kind.open()
            for id in ["a", "b", "c", "d", "e"] { try await store.insert(record(id), tags: []) }
            try await store.saveQueuePositions([("d", 0), ("b", 1), ("e", 2), ("a", -1)])
            let read = try await kind.open().torrentsWithoutSources()
            // Queued first, in queue order; then the rest in the order they were added (a not queued, c never stored).
            XCTAssertEqual(read.map(\.record.id), ["d", "b", "e", "a", "c"])
            XCTAssertEqual(read.map(\.queuePosition), [0, 1, 2, nil, nil])
        }
    }

    func testSearchPluginsKeepTheirStateAcrossReopens() async throws {
        try await onEachStore { kind in
            let store = try await kind.open()
            try await store.searchPlugins.saveSearchPlugin(SearchPluginRecord(name: "eng", kind: .nova3, version: "1.2", fullName: "Engine",
                                                                url: "http://e", categories: ["movies", "tv"], source: "http://e/eng.py"))
            try await store.searchPlugins.saveSearchPlugin(SearchPluginRecord(name: "idx", kind: .torznab, fullName: "Indexer", url: "http://i",
                                                                categories: [], apiKey: "k"))
            try await store.searchPlugins.setSearchPluginsEnabled(["eng"], false)
            // An update keeps the enabled state.
            try await store.searchPlugins.saveSearchPlugin(SearchPluginRecord(name: "eng", kind: .nova3, version: "1.3", fullName: "Engine",
                                                                url: "http://e", categories: ["movies"]))
            let plugins = try await kind.open().searchPlugins.searchPlugins()
            XCTAssertEqual(plugins.map(\.name), ["eng", "idx"])
            XCTAssertEqual(plugins[0].enabled, false)
            XCTAssertEqual(plugins[0].version, "1.3")
            XCTAssertEqual(plugins[0].categories, ["movies"])
            XCTAssertEqual(plugins[1].apiKey, "k")
            try await store.searchPlugins.deleteSearchPlugins(["eng"])
            let left = try await store.searchPlugins.searchPlugins()
            XCTAssertEqual(left.map(\.name), ["idx"])
        }
    }

    func testSSLParametersAreStoredAndGoWithTheirTorrent() async throws {
        try await onEachStore { kind in
            let store = try await kind.open()
            try await store.insert(record("a"), tags: [])
            let ssl = SSLParameters(certificate: "CERT", privateKey: "KEY", dhParams: "DH")
            try await store.setSSLParameters("a", ssl)
            try await store.setSSLParameters("a", SSLParameters(certificate: "CERT2", privateKey: "KEY", dhParams: "DH"))
            let reopened = try await kind.open()
            let stored = try await reopened.sslParameters("a")
            XCTAssertEqual(stored?.certificate, "CERT2")
            try await reopened.deleteTorrent("a")
            let afterDelete = try await reopened.sslParameters("a")
            XCTAssertNil(afterDelete)
        }
    }

    func testAPIKeysAreStoredHashedAndRevocable() async throws {
        try await onEachStore { kind in
            let store = try await kind.open()
            let key = APIKeyRecord(id: "k1", name: "script", keyHash: Digest.sha256Hex("qbt_secret"), createdAt: 1)
            try await store.apiKeys.insertAPIKey(key)
            let keys = try await store.apiKeys.apiKeys()
            XCTAssertEqual(keys, [key])
            XCTAssertNotEqual(keys.first?.keyHash, "qbt_secret")
            let revoked = try await store.apiKeys.deleteAPIKey(id: "k1")
            let again = try await store.apiKeys.deleteAPIKey(id: "k1")
            XCTAssertTrue(revoked)
            XCTAssertFalse(again)
            // A scope is kept, changed, and read back after a reopen.
            try await store.apiKeys.insertAPIKey(APIKeyRecord(id: "k2", name: "phone", keyHash: "h2", createdAt: 2, scope: "music"))
            try await store.apiKeys.setAPIKeyScope(id: "k2", scope: "read-only")
            let reopened = try await kind.open().apiKeys.apiKeys()
            XCTAssertEqual(reopened.map(\.scope), ["read-only"])
        }
    }

    func testTorrentSurvivesReopenWithCategoryTagsAndResumeData() async throws {
        try await onEachStore { kind in
            do {
                let store = try await kind.open()
                try await store.insert(record("a", category: "films"), tags: ["hd", "new"])
                try await store.saveResumeData("a", Data("resume".utf8))
                try await store.updateTorrent("a") { $0.stopped = true }
            }
            let reopened = try await kind.open()
            let all = try await reopened.torrents()
            XCTAssertEqual(all.count, 1)
            XCTAssertEqual(all[0].record.category, "films")
            XCTAssertEqual(all[0].tags, ["hd", "new"])
            XCTAssertEqual(all[0].record.resumeData, Data("resume".utf8))
            XCTAssertTrue(all[0].record.stopped)
            let value1 = try await reopened.categories()
            XCTAssertEqual(value1, [Category(name: "films", savePath: "")])
            let value2 = try await reopened.tags()
            XCTAssertEqual(value2, ["hd", "new"])
        }
    }

    func testACategoryKeepsTheNodesItIsPinnedTo() async throws {
        try await onEachStore { kind in
            do {
                let store = try await kind.open()
                let films = try await store.createCategory(Category(name: "films", savePath: "/f", nodes: ["a", "b-2"]))
                let music = try await store.createCategory(Category(name: "music", savePath: ""))
                let edited = try await store.editCategory(Category(name: "music", savePath: "", nodes: ["c.3"]))
                XCTAssertTrue(films && music && edited)
            }
            let reopened = try await kind.open()
            let categories = try await reopened.categories()
            XCTAssertEqual(categories, [Category(name: "films", savePath: "/f", nodes: ["a", "b-2"]),
                                        Category(name: "music", savePath: "", nodes: ["c.3"])])
        }
    }

    func testRemovingCategoryAndTagsUpdatesTorrents() async throws {
        try await onEachStore { kind in
            let store = try await kind.open()
            try await store.insert(record("a", category: "c"), tags: ["t1", "t2"])
            try await store.removeCategories(["c"])
            try await store.deleteTags(["t1"])
            let t = try await store.torrent("a")
            XCTAssertNil(t?.record.category)
            XCTAssertEqual(t?.tags, ["t2"])
            try await store.deleteTorrent("a")
            let value3 = try await store.torrent("a")
            XCTAssertNil(value3)
            let value4 = try await store.tags()
            XCTAssertEqual(value4, ["t2"], "tags outlive their torrents, as in qBittorrent")
        }
    }

    func testAFailedInsertLeavesNoHalfRow() async throws {
        try await onEachStore { kind in
            let store = try await kind.open()
            try await store.insert(record("a"), tags: [])
            // Same id again: the whole transaction (category and tags included) must roll back.
            do {
                try await store.insert(record("a", category: "ghost"), tags: ["ghost"])
                XCTFail("duplicate insert succeeded")
            } catch {}
            let value5 = try await store.categories()
            XCTAssertEqual(value5, [])
            let value6 = try await store.tags()
            XCTAssertEqual(value6, [])
            // A row with neither metainfo nor magnet is refused by the schema.
            var empty = record("b")
            empty.metainfo = nil
            do { try await store.insert(empty, tags: []); XCTFail("row without a source stored") } catch {}
        }
    }

    func testPreferencesRoundTrip() async throws {
        try await onEachStore { kind in
            let store = try await kind.open()
            try await store.setPreferences(["dl_limit": 1024, "save_path": "/srv"])
            let value7 = try await store.preference("dl_limit", as: Int.self)
            XCTAssertEqual(value7, 1024)
            let value8 = try await store.preference("save_path", as: String.self)
            XCTAssertEqual(value8, "/srv")
            let value9 = try await store.preference("missing", as: String.self)
            XCTAssertNil(value9)
        }
    }

    func testPasswordHashIsQBittorrentsFormat() throws {
        let hash = PasswordHash(hashing: "secret")
        XCTAssertTrue(hash.encoded.hasPrefix("@ByteArray("))
        let parsed = try XCTUnwrap(PasswordHash(encoded: hash.encoded))
        XCTAssertTrue(parsed.matches("secret"))
        XCTAssertFalse(parsed.matches("Secret"))
        XCTAssertNil(PasswordHash(encoded: "secret"))
        XCTAssertNotEqual(PasswordHash(hashing: "secret").salt, hash.salt, "salt is random")
    }

    func testPasswordHashMatchesQBittorrentsDefaultAdminHash() throws {
        // qBittorrent 4.5's stock hash of "adminadmin".
        let stock = "@ByteArray(ARQ77eY1NUZaQsuDHbIMCA==:0WMRkYTUWVT9wVvdDtHAjU9b3b7uB8NR1Gur2hmQCvCDpm39Q+PsJRJPaCU51dEiz+dTzh8qbPsL8WkFljQYFQ==)"
        XCTAssertTrue(try XCTUnwrap(PasswordHash(encoded: stock)).matches("adminadmin"))
    }

    func testHexAndSHA256Hex() {
        XCTAssertEqual(Hex.encode([0x00, 0x0f, 0xa5, 0xff]), "000fa5ff")
        XCTAssertEqual(Hex.encode([]), "")
        XCTAssertEqual(Digest.sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
