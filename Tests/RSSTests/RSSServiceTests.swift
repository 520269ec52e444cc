import EngineTestSupport
import Foundation
import QBTCore
@testable import RSS
import Store
import XCTest

/// The RSS session over a real SQLite file and the in-memory engine: tree changes and their refusals, the merge,
/// rules in their JSON forms, and what survives a restart.
final class RSSServiceTests: XCTestCase {
    var dir: URL!

    override func setUp() async throws { dir = try temporaryFolder("rss") }
    override func tearDown() async throws { try? FileManager.default.removeItem(at: dir) }

    func service(_ server: MemoryServer, profile: Identity.Profile = .v5_1) async throws -> RSSService {
        try await RSSService(store: server.store, settings: server.settings, torrents: server.service, profile: profile)
    }

    func testTreeChangesAreCheckedInQBittorrentsOrder() async throws {
        let server = try await MemoryServer.start(in: dir)
        let rss = try await service(server)
        try await rss.addFolder("A")
        try await rss.addFolder("A\\B")
        try await rss.addFeed(url: "http://127.0.0.1/f", path: "A\\B\\F")
        func refusal(_ work: () async throws -> Void) async -> String? {
            do { try await work(); return nil } catch { return "\(error)" }
        }
        let addTwice = await refusal { try await rss.addFolder("A") }
        XCTAssertEqual(addTwice, "RSS item with given path already exists: A.")
        let noParent = await refusal { try await rss.addFolder("X\\Y") }
        XCTAssertEqual(noParent, "Parent folder doesn't exist: X.")
        let underFeed = await refusal { try await rss.addFolder("A\\B\\F\\G") }
        XCTAssertEqual(underFeed, "Parent folder doesn't exist: A\\B\\F.")
        let bad = await refusal { try await rss.addFolder("\\A") }
        XCTAssertEqual(bad, "Incorrect RSS Item path: \\A.")
        let sameURL = await refusal { try await rss.addFeed(url: "http://127.0.0.1/f", path: "G") }
        XCTAssertEqual(sameURL, "RSS feed with given URL already exists: http://127.0.0.1/f.")
        let intoItself = await refusal { try await rss.moveItem("A", to: "A\\B\\C") }
        XCTAssertEqual(intoItself, "Couldn't move folder into itself.")
        try await rss.moveItem("A\\B", to: "B2")
        let json = await rss.itemsJSON(withData: false)
        guard case .object(let root) = json, case .object(let b2)? = root["B2"], case .object(let feed)? = b2["F"] else {
            return XCTFail("\(json)")
        }
        XCTAssertEqual(feed["url"], .string("http://127.0.0.1/f"))
        XCTAssertEqual(root["A"], .object([:]))

        // A restart reads the same tree back.
        let again = try await service(MemoryServer.start(in: dir, store: server.store))
        let reread = await again.itemsJSON(withData: false)
        XCTAssertEqual(reread, json)
    }

    func testFiveTwoWordingAndNoOpMove() async throws {
        let server = try await MemoryServer.start(in: dir)
        let rss = try await service(server, profile: .v5_2)
        try await rss.addFolder("A")
        try await rss.moveItem("A", to: "A")
        do { try await rss.moveItem("A", to: "A\\B"); XCTFail("moved into itself") } catch {
            XCTAssertEqual("\(error)", "Can't move a folder into itself or its subfolders.")
        }
    }

    func testMergeKeepsKnownArticlesAndTheNewest() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func parsed(_ id: String, _ days: Double?) -> ParsedArticle {
            ParsedArticle(id: id, date: days.map { FeedDate(date: Date(timeIntervalSince1970: $0 * 86_400)) }, torrentURL: nil,
                          fields: ["title": id])
        }
        let first = ArticleMerge.merge(existing: [], parsed: [parsed("c", 3), parsed("b", 2), parsed("a", 1)], limit: 10, now: now)
        XCTAssertEqual(first.articles.map(\.id), ["c", "b", "a"])
        XCTAssertEqual(first.added.map(\.id), ["a", "b", "c"])  // oldest first
        var existing = first.articles
        existing[1].isRead = true
        // A known id is never updated; an undated item takes a date just before the known one after it; the limit
        // keeps the newest.
        let second = ArticleMerge.merge(existing: existing, parsed: [parsed("d", 4), parsed("x", nil), parsed("b", 9), parsed("c", 3)],
                                        limit: 4, now: now)
        XCTAssertEqual(second.articles.map(\.id), ["d", "c", "b", "x"])
        XCTAssertEqual(second.articles.first { $0.id == "b" }?.isRead, true)
        XCTAssertEqual(second.articles.first { $0.id == "x" }?.date.date, Date(timeIntervalSince1970: 2 * 86_400 - 0.001))
        XCTAssertEqual(second.removed, ["a"])
        XCTAssertEqual(Set(second.added.map(\.id)), ["d", "x"])
    }

    func testRuleDefinitionsInBothForms() throws {
        let legacy = DownloadRule(definition: [
            "mustContain": .string("a|b"), "useRegex": .bool(false), "affectedFeeds": .string("http://x"),
            "savePath": .string("/s"), "assignedCategory": .string("c"), "addPaused": .bool(true), "createSubfolder": .bool(false),
        ])
        XCTAssertEqual(legacy.mustContain, ["a", "b"])
        XCTAssertEqual(legacy.affectedFeeds, ["http://x"])
        XCTAssertEqual(legacy.torrentParams.bool("use_auto_tmm"), false)
        XCTAssertEqual(legacy.torrentParams.string("content_layout"), "NoSubfolder")
        let options = legacy.torrentParams.addOptions(defaultStopped: false)
        XCTAssertEqual(options.savePath, "/s")
        XCTAssertEqual(options.category, "c")
        XCTAssertTrue(options.stopped)
        XCTAssertEqual(options.contentLayout, .noSubfolder)
        // torrentParams wins over the legacy keys; unknown enum names take the first value.
        let modern = DownloadRule(definition: [
            "useRegex": .bool(true), "mustContain": .string("a|b"), "assignedCategory": .string("ignored"),
            "torrentParams": .object(["category": .string("tv"), "operating_mode": .string("Bogus"), "tags": .array([.string("x")])]),
        ])
        XCTAssertEqual(modern.mustContain, ["a|b"])
        XCTAssertEqual(modern.torrentParams.string("category"), "tv")
        XCTAssertEqual(modern.torrentParams.string("operating_mode"), "AutoManaged")
        guard case .object(let json) = modern.json(v5: false), case .object(let params)? = json["torrentParams"] else {
            return XCTFail("not an object")
        }
        XCTAssertEqual(json["assignedCategory"], .string("tv"))
        XCTAssertEqual(json["addPaused"], .null)
        XCTAssertNil(params["share_limit_action"])
        XCTAssertEqual(DownloadRule(definition: (modern.json(v5: true).objectValue)!), modern)
    }

    func testRulesAndReadStateSurviveARestart() async throws {
        let server = try await MemoryServer.start(in: dir)
        let rss = try await service(server)
        var rule = DownloadRule()
        rule.mustContain = ["show"]
        rule.priority = 2
        try await rss.setRule("R", rule)
        try await rss.setRule("Q", DownloadRule())
        try await rss.renameRule("Q", to: "P")
        let again = try await service(MemoryServer.start(in: dir, store: server.store))
        let names = await again.orderedRules.map(\.name)
        XCTAssertEqual(names, ["P", "R"])
        let reread = await again.rule("R")
        XCTAssertEqual(reread, rule)
    }

    /// Each `.rss` preference changes what the session does (the catalogue's probe for keys applied outside QBTCore).
    func testEveryRSSPreferenceActs() async throws {
        let server = try await MemoryServer.start(in: dir)
        let settings = server.settings
        let rss = try await service(server)
        await rss.start()
        let probed: Set<String> = ["proxy_rss", "rss_refresh_interval", "rss_fetch_delay", "rss_max_articles_per_feed",
                                   "rss_processing_enabled", "rss_auto_downloading_enabled",
                                   "rss_download_repack_proper_episodes", "rss_smart_episode_filters"]
        XCTAssertEqual(Set(PreferenceCatalogue.entries.filter { $0.applier == .rss }.map(\.key)), probed)
        func eventually(_ what: String, _ check: @escaping @Sendable () async -> Bool) async throws {
            for _ in 0..<200 {
                if await check() { return }
                try await Task.sleep(for: .milliseconds(10))
            }
            XCTFail(what)
        }
        // A feed with three articles, and a rule that has seen episode 1x2.
        try await rss.addFeed(url: "http://127.0.0.1:9/feed", path: "F")
        let first = await rss.feeds.first?.feed.uid
        let uid = try XCTUnwrap(first)
        let titles = ["Show S01E02 REPACK", "b", "c"]
        let parsed = titles.enumerated().map { i, t in
            ParsedArticle(id: t, date: FeedDate(date: Date(timeIntervalSince1970: Double(i) * 1000)), torrentURL: nil, fields: ["title": t])
        }
        await rss.merge(uid: uid, url: "http://127.0.0.1:9/feed", ParsedFeed(articles: parsed), etag: nil, lastModified: nil)
        var rule = DownloadRule()
        rule.smartFilter = true
        rule.previouslyMatchedEpisodes = ["1x2"]
        rule.affectedFeeds = ["http://127.0.0.1:9/feed"]
        try await rss.setRule("R", rule)

        try await settings.update(["rss_download_repack_proper_episodes": .bool(false)])
        let withoutRepacks = await rss.matchingArticles(ruleName: "R")
        try await settings.update(["rss_download_repack_proper_episodes": .bool(true)])
        let withRepacks = await rss.matchingArticles(ruleName: "R")
        XCTAssertNotEqual(withoutRepacks, withRepacks)

        try await settings.update(["rss_max_articles_per_feed": .int(1)])
        try await eventually("rss_max_articles_per_feed trims") { await rss.feeds.first?.feed.articles.count == 1 }

        try await settings.update(["rss_smart_episode_filters": .string("x(\\d+)")])
        try await eventually("rss_smart_episode_filters recompiles") { await rss.smartFilter.episodeID(in: "a x7") == "7" }

        try await settings.update(["rss_auto_downloading_enabled": .bool(true)])
        try await eventually("rss_auto_downloading_enabled starts the downloader") { await rss.downloading }

        try await settings.update(["rss_processing_enabled": .bool(true)])
        try await eventually("rss_processing_enabled schedules") { await rss.scheduler != nil }
        let armed = await rss.scheduler
        try await settings.update(["rss_refresh_interval": .int(7)])
        try await eventually("rss_refresh_interval re-arms the schedule") { await rss.scheduler != armed }

        // rss_fetch_delay: the next download from a host starts that long after the last one ended.
        try await settings.update(["rss_fetch_delay": .int(1)])
        await rss.acquireHost("h:80")
        await rss.releaseHost("h:80")
        let t0 = ContinuousClock.now
        await rss.acquireHost("h:80")
        XCTAssertGreaterThan(ContinuousClock.now - t0, .milliseconds(900))
        await rss.releaseHost("h:80")

        try await settings.update(["proxy_type": .string("HTTP"), "proxy_ip": .string("127.0.0.1"), "proxy_port": .int(3128),
                                   "proxy_rss": .bool(false)])
        let direct = settings.fetchRoute(for: .rss)
        try await settings.update(["proxy_rss": .bool(true)])
        let proxied = settings.fetchRoute(for: .rss)
        XCTAssertEqual(direct.proxyURL, nil)
        XCTAssertEqual(proxied.proxyURL, "http://127.0.0.1:3128")
        await rss.shutdown()
    }

    func testPaths() {
        XCTAssertTrue(RSSPath.isValid("a\\b c"))
        for bad in ["", "\\a", "a\\", "a\\\\b"] { XCTAssertFalse(RSSPath.isValid(bad), bad) }
        XCTAssertEqual(RSSPath.parent("a\\b\\c"), "a\\b")
        XCTAssertEqual(RSSPath.name("a\\b\\c"), "c")
        XCTAssertTrue(RSSPath.isWithin("a\\b", "a"))
        XCTAssertFalse(RSSPath.isWithin("ab", "a"))
    }
}
