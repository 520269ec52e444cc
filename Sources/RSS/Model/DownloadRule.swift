import Foundation
import QBTCore

/// One auto-download rule, as `rss/setRule` defines it and `rss/rules` shows it.
public struct DownloadRule: Sendable, Equatable {
    public var enabled = true
    public var priority = 0
    public var useRegex = false
    public var mustContain: [String] = []
    public var mustNotContain: [String] = []
    public var episodeFilter = ""
    /// Feed URLs.
    public var affectedFeeds: [String] = []
    public var ignoreDays = 0
    public var lastMatch: FeedDate?
    public var smartFilter = false
    public var previouslyMatchedEpisodes: [String] = []
    public var torrentParams = RuleTorrentParams()

    public init() {}

    /// Reads a rule definition as qBittorrent's `setRule` does: a value of the wrong type takes the default, so a
    /// partial definition resets what it leaves out; `torrentParams` wins over the 4.5 keys.
    public init(definition d: [String: JSONValue]) {
        func int(_ key: String, _ fallback: Int) -> Int { RuleTorrentParams.int(d[key]).map { Int(clamping: $0) } ?? fallback }
        func list(_ key: String) -> [String] {
            switch d[key] {
            case .string(let s)?: [s]
            case .array(let a)?: a.map { $0.stringValue ?? "" }
            default: []
            }
        }
        enabled = d["enabled"]?.boolValue ?? true
        priority = int("priority", 0)
        useRegex = d["useRegex"]?.boolValue ?? false  // first: it decides how the expressions split
        mustContain = RuleMatcher.expressions(d["mustContain"]?.stringValue ?? "", useRegex: useRegex)
        mustNotContain = RuleMatcher.expressions(d["mustNotContain"]?.stringValue ?? "", useRegex: useRegex)
        episodeFilter = d["episodeFilter"]?.stringValue ?? ""
        affectedFeeds = list("affectedFeeds")
        ignoreDays = int("ignoreDays", 0)
        lastMatch = d["lastMatch"]?.stringValue.flatMap { FeedDate(stored: $0) }
        smartFilter = d["smartFilter"]?.boolValue ?? false
        previouslyMatchedEpisodes = list("previouslyMatchedEpisodes")
        if let params = d["torrentParams"] {
            torrentParams = RuleTorrentParams(object: params.objectValue ?? [:])
        } else {
            var legacy: [String: JSONValue] = [:]
            let savePath = d["savePath"]?.stringValue ?? ""
            legacy["save_path"] = .string(savePath)
            if !savePath.isEmpty { legacy["use_auto_tmm"] = .bool(false) }
            legacy["category"] = .string(d["assignedCategory"]?.stringValue ?? "")
            if let paused = d["addPaused"]?.boolValue { legacy["stopped"] = .bool(paused) }
            if let layout = d["torrentContentLayout"] {
                if let name = layout.stringValue, !name.isEmpty { legacy["content_layout"] = .string(name) }
            } else if let subfolder = d["createSubfolder"]?.boolValue {
                legacy["content_layout"] = .string(subfolder ? "Original" : "NoSubfolder")
            }
            torrentParams = RuleTorrentParams(object: legacy)
        }
    }

    /// The rule's JSON: 4.6 and later write `priority` and `torrentParams` (5.x adds its share limit and SSL keys),
    /// and every version mirrors the 4.5 keys.
    public func json(v5: Bool, v53: Bool = false) -> JSONValue {
        var o: [String: JSONValue] = [
            "enabled": .bool(enabled), "priority": .int(Int64(priority)), "useRegex": .bool(useRegex),
            "mustContain": .string(mustContain.joined(separator: "|")),
            "mustNotContain": .string(mustNotContain.joined(separator: "|")),
            "episodeFilter": .string(episodeFilter), "affectedFeeds": .array(affectedFeeds.map(JSONValue.string)),
            "lastMatch": .string(lastMatch?.formatted ?? ""), "ignoreDays": .int(Int64(ignoreDays)),
            "smartFilter": .bool(smartFilter),
            "previouslyMatchedEpisodes": .array(previouslyMatchedEpisodes.map(JSONValue.string)),
            "torrentParams": torrentParams.json(v5: v5, v53: v53),
        ]
        o["addPaused"] = torrentParams.bool("stopped").map(JSONValue.bool) ?? .null
        o["torrentContentLayout"] = torrentParams.values["content_layout"] ?? .null
        o["savePath"] = .string(torrentParams.string("save_path"))
        o["assignedCategory"] = .string(torrentParams.string("category"))
        return .object(o)
    }

    /// The conditions, compiled.
    public func matcher() -> RuleMatcher {
        RuleMatcher(useRegex: useRegex, mustContain: mustContain, mustNotContain: mustNotContain,
                    episodeFilter: episodeFilter, smartFilter: smartFilter, ignoreDays: ignoreDays)
    }
}
