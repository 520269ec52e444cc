import Foundation
import QBTCore
import Store

/// `rss/setRule`, `renameRule`, `removeRule`, `rules`, `matchingArticles`.
extension RSSService {
    /// Rules in the order they are tried: by priority, then the order they were added in.
    var orderedRules: [(name: String, rule: DownloadRule, matcher: RuleMatcher, position: Int)] {
        rules.sorted { a, b in a.rule.priority != b.rule.priority ? a.rule.priority < b.rule.priority : a.position < b.position }
    }

    /// Adds or replaces a rule; a changed rule makes every unread article a candidate again.
    public func setRule(_ name: String, _ rule: DownloadRule) async throws {
        if let i = rules.firstIndex(where: { $0.name == name }) {
            guard rules[i].rule != rule else { return }
            rules[i].rule = rule
            rules[i].matcher = rule.matcher()
        } else {
            rules.append((name, rule, rule.matcher(), nextRulePosition))
            nextRulePosition += 1
        }
        try await saveRule(name)
        requeueUnread()
    }

    /// Writes the rule as it is now (nothing when it is gone meanwhile).
    func saveRule(_ name: String) async throws {
        guard let entry = rules.first(where: { $0.name == name }) else { return }
        let record = RSSRuleRecord(name: name, position: entry.position,
                                   definition: String(decoding: entry.rule.json(v5: true, v53: true).serialized(), as: UTF8.self))
        do { try await persist { try await $0.rss.saveRSSRule(record) } } catch { throw RSSError.store("\(error)") }
    }

    /// Nothing happens when `name` is unknown or `newName` taken (qBittorrent answers 200 either way).
    public func renameRule(_ name: String, to newName: String) async throws {
        guard let i = rules.firstIndex(where: { $0.name == name }), !rules.contains(where: { $0.name == newName }) else { return }
        rules[i].name = newName
        do { try await persist { try await $0.rss.renameRSSRule(name, to: newName) } } catch { throw RSSError.store("\(error)") }
    }

    /// `rss/cloneRule` (5.3): a copy under a new name, disabled, with no matched episodes and no last match, so it
    /// matches afresh once enabled. Nothing happens when the source is missing or the name taken.
    public func cloneRule(_ name: String, as cloneName: String) async throws {
        guard var rule = rule(name), !rules.contains(where: { $0.name == cloneName }) else { return }
        rule.enabled = false
        rule.previouslyMatchedEpisodes = []
        rule.lastMatch = nil
        try await setRule(cloneName, rule)
    }

    public func removeRule(_ name: String) async throws {
        guard let i = rules.firstIndex(where: { $0.name == name }) else { return }
        rules.remove(at: i)
        do { try await persist { try await $0.rss.deleteRSSRule(name) } } catch { throw RSSError.store("\(error)") }
    }

    /// `rss/rules`: every rule as the profile writes it (4.6 has no 5.x keys in `torrentParams`).
    public func rulesJSON() -> JSONValue {
        .object(Dictionary(rules.map { ($0.name, $0.rule.json(v5: profile != .v4_6, v53: profile >= .v5_3)) }, uniquingKeysWith: { a, _ in a }))
    }

    public func rule(_ name: String) -> DownloadRule? { rules.first { $0.name == name }?.rule }

    /// `rss/matchingArticles`: per feed name, the titles of its articles (newest first) the rule matches, read or
    /// not, enabled or not; nothing is recorded.
    public func matchingArticles(ruleName: String) async -> JSONValue {
        guard let entry = rules.first(where: { $0.name == ruleName }) else { return .object([:]) }
        let repacks = settings[\.rssDownloadRepackProperEpisodes]
        var out: [String: JSONValue] = [:]
        for url in entry.rule.affectedFeeds {
            guard let (path, feed) = feeds.first(where: { $0.feed.url == url }) else { continue }
            let titles = feed.articles.filter {
                entry.matcher.match(title: $0.title, articleDate: $0.date.date, lastMatch: entry.rule.lastMatch?.date,
                                    previouslyMatched: entry.rule.previouslyMatchedEpisodes, smart: smartFilter,
                                    downloadRepacks: repacks, rejectUnrecognizedEpisodes: modern) != nil
            }.map { JSONValue.string($0.title) }
            if !titles.isEmpty { out[RSSPath.name(path)] = .array(titles) }
        }
        return .object(out)
    }

    /// A feed's URL changed: rules that named the old one name the new one (in memory; returns their names to save).
    func replaceAffectedFeed(_ old: String, with new: String) -> [String] {
        var changed: [String] = []
        for i in rules.indices where rules[i].rule.affectedFeeds.contains(old) {
            rules[i].rule.affectedFeeds = rules[i].rule.affectedFeeds.map { $0 == old ? new : $0 }
            changed.append(rules[i].name)
        }
        return changed
    }
}
