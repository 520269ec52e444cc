import ArgumentParser
import Foundation
import QBTClient

struct RSS: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rss",
        abstract: "RSS feeds, their articles, and the rules that download from them.",
        discussion: """
            qbt rss add https://example.org/feed.xml
            qbt rss rules add "My show" --must-contain "my show 1080p" --feed https://example.org/feed.xml --category tv
            qbt rss matching "My show"
            """,
        subcommands: [Feeds.self, AddFeed.self, Remove.self, Refresh.self, Articles.self, Rules.self, Matching.self],
        defaultSubcommand: Feeds.self)

    /// Every feed of the tree: (path, feed object).
    static func feeds(_ tree: [String: Any], under prefix: String = "") -> [(path: String, feed: [String: Any])] {
        var out: [(String, [String: Any])] = []
        for (name, value) in tree {
            guard let object = value as? [String: Any] else { continue }
            let path = prefix.isEmpty ? name : prefix + "\\" + name
            if object["url"] is String { out.append((path, object)) } else { out += feeds(object, under: path) }
        }
        return out.sorted { $0.0 < $1.0 }
    }

    /// `path` is `folder`, or lies under it ("" holds everything).
    static func within(_ path: String, _ folder: String) -> Bool {
        folder.isEmpty || path == folder || path.hasPrefix(folder + "\\")
    }

    struct Feeds: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "feeds", abstract: "List feeds with their article counts and state.")
        @OptionGroup var global: GlobalOptions
        func run() async throws {
            let client = try await global.client()
            let tree = try await client.rss.items(withData: true)
            if global.json { return Output.printJSON(tree) }
            let feeds = RSS.feeds(tree)
            if feeds.isEmpty { return Output.note("No feeds: add one with `qbt rss add URL`.") }
            print(Output.table(["PATH", "TITLE", "ARTICLES", "UNREAD", "STATE", "URL"], feeds.map { path, feed in
                let articles = feed["articles"] as? [[String: Any]] ?? []
                let unread = articles.filter { ($0["isRead"] as? Bool) != true }.count
                let state = (feed["isLoading"] as? Bool) == true ? "loading" : (feed["hasError"] as? Bool) == true ? "error" : "ok"
                return [path, feed["title"] as? String ?? "", String(articles.count), String(unread), state, feed["url"] as? String ?? ""]
            }, flex: 1, rightAligned: [2, 3]))
        }
    }

    struct AddFeed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a feed (it is fetched at once when RSS processing is on).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The feed's URL.") var url: String
        @Option(help: "Where it goes in the tree (folders separated by \\); the URL by default.") var path = ""
        func run() async throws {
            let client = try await global.client()
            try await client.rss.addFeed(url: url, path: path)
            try await client.rss.refresh(path.isEmpty ? url : path)
            print("Added \(url).")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a feed or a folder (with what it holds).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The item's path, as `qbt rss feeds` shows it.") var path: String
        func run() async throws {
            try await global.client().rss.removeItem(path)
            print("Removed \(path).")
        }
    }

    struct Refresh: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "refresh", abstract: "Fetch a feed, a folder's feeds, or every feed now.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "A feed or folder path; every feed when left out.") var path = ""
        @Option(help: "Wait up to this many seconds for the refresh to finish.") var wait: Double = 30
        func run() async throws {
            let client = try await global.client()
            try await client.rss.refresh(path)
            let deadline = ContinuousClock.now + .seconds(wait)
            while ContinuousClock.now < deadline {
                let feeds = RSS.feeds(try await client.rss.items(withData: true)).filter { RSS.within($0.path, path) }
                let loading = feeds.filter { ($0.feed["isLoading"] as? Bool) == true }.count
                status("refreshing: \(feeds.count - loading)/\(feeds.count) feed\(feeds.count == 1 ? "" : "s") done…")
                if loading == 0 { break }
                try await Task.sleep(nanoseconds: 250_000_000)
            }
            endStatus()
            let feeds = RSS.feeds(try await client.rss.items(withData: true))
            for (p, feed) in feeds where (feed["hasError"] as? Bool) == true && RSS.within(p, path) {
                Output.note("\(p): the last refresh failed; `qbt log` says why.")
            }
            print("Refreshed.")
        }
    }

    struct Articles: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "articles", abstract: "List the articles of a feed, a folder, or every feed.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "A feed or folder path; every feed when left out.") var path = ""
        @Flag(help: "Only unread articles.") var unread = false
        @Option(help: "Show at most this many (newest first).") var limit = 50
        func run() async throws {
            let client = try await global.client()
            var rows: [(feed: String, article: [String: Any])] = []
            for (p, feed) in RSS.feeds(try await client.rss.items(withData: true)) where RSS.within(p, path) {
                for article in feed["articles"] as? [[String: Any]] ?? [] where !unread || (article["isRead"] as? Bool) != true {
                    rows.append((p, article))
                }
            }
            if global.json { return Output.printJSON(rows.map { ["feed": $0.feed, "article": $0.article] as [String: Any] }) }
            if rows.isEmpty { return Output.note("No articles.") }
            print(Output.table(["FEED", "DATE", "READ", "TITLE"], rows.prefix(limit).map { row in
                [row.feed, row.article["date"] as? String ?? "", (row.article["isRead"] as? Bool) == true ? "yes" : "no",
                 row.article["title"] as? String ?? ""]
            }, flex: 3))
        }
    }

    struct Rules: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List, add and remove auto-download rules.", subcommands: [ListRules.self, AddRule.self, RemoveRule.self],
            defaultSubcommand: ListRules.self)
    }

    struct ListRules: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List auto-download rules.")
        @OptionGroup var global: GlobalOptions
        func run() async throws {
            let rules = try await global.client().rss.rules()
            if global.json { return Output.printJSON(rules) }
            if rules.isEmpty { return Output.note("No rules: add one with `qbt rss rules add NAME --must-contain …`.") }
            print(Output.table(["NAME", "ON", "MUST CONTAIN", "MUST NOT CONTAIN", "EPISODES", "FEEDS", "CATEGORY"], rules.keys.sorted().map { name in
                let r = rules[name] as? [String: Any] ?? [:]
                let params = r["torrentParams"] as? [String: Any] ?? [:]
                return [name, (r["enabled"] as? Bool) == false ? "no" : "yes", r["mustContain"] as? String ?? "",
                        r["mustNotContain"] as? String ?? "", r["episodeFilter"] as? String ?? "",
                        String((r["affectedFeeds"] as? [Any])?.count ?? 0), params["category"] as? String ?? r["assignedCategory"] as? String ?? ""]
            }, flex: 2))
        }
    }

    struct AddRule: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add or replace an auto-download rule.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The rule's name.") var name: String
        @Option(help: "Words the title must have (wildcards * ?, spaces mean AND, | means OR).") var mustContain = ""
        @Option(help: "Words the title must not have.") var mustNotContain = ""
        @Flag(help: "The two expressions are regular expressions.") var regex = false
        @Option(help: "Episodes, as qBittorrent writes them: 1x2;8-15;30-;") var episodeFilter = ""
        @Flag(help: "Download each episode once (qBittorrent's smart episode filter).") var smart = false
        @Option(help: "A feed URL the rule reads (repeat for several).") var feed: [String] = []
        @Option(help: "The category of what it adds.") var category = ""
        @Option(help: "Tags of what it adds (repeat for several).") var tag: [String] = []
        @Option(help: "Where what it adds is saved (manual mode).") var savePath = ""
        @Flag(help: "Add the torrents stopped.") var stopped = false
        @Option(help: "Ignore matches for this many days after one.") var ignoreDays = 0
        @Flag(help: "Add the rule switched off.") var disabled = false

        func validate() throws {
            if feed.isEmpty { throw ValidationError("name at least one --feed URL: a rule reads only the feeds it names") }
            if ignoreDays < 0 { throw ValidationError("--ignore-days cannot be negative") }
        }

        func run() async throws {
            var params: [String: Any] = ["category": category, "tags": tag, "save_path": savePath]
            if stopped { params["stopped"] = true }
            if !savePath.isEmpty { params["use_auto_tmm"] = false }
            try await global.client().rss.setRule(name, definition: [
                "enabled": !disabled, "useRegex": regex, "mustContain": mustContain, "mustNotContain": mustNotContain,
                "episodeFilter": episodeFilter, "smartFilter": smart, "affectedFeeds": feed, "ignoreDays": ignoreDays,
                "torrentParams": params,
            ])
            print("Rule \(name) saved.")
        }
    }

    struct RemoveRule: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove an auto-download rule.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The rule's name.") var name: String
        func run() async throws {
            try await global.client().rss.removeRule(name)
            print("Rule \(name) removed.")
        }
    }

    struct Matching: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "matching", abstract: "The articles a rule matches, per feed.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The rule's name.") var rule: String
        func run() async throws {
            let matches = try await global.client().rss.matchingArticles(rule)
            if global.json { return Output.printJSON(matches) }
            if matches.isEmpty { return Output.note("The rule \(rule) matches no article (is it there? `qbt rss rules`).") }
            for feed in matches.keys.sorted() {
                print("\(feed):")
                for title in matches[feed] ?? [] { print("  \(title)") }
            }
        }
    }
}
