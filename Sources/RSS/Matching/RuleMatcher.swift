import Foundation

/// A rule's matching conditions, compiled once.
public struct RuleMatcher: Sendable {
    private let mustContain: [TitleExpression]
    private let mustNotContain: [TitleExpression]
    private let episodeFilter: EpisodeFilter
    private let smartFilter: Bool
    private let ignoreDays: Int

    /// Splits a mustContain/mustNotContain definition as qBittorrent stores it (§8.3): regex mode one expression,
    /// wildcard mode split on every "|"; a single empty string → [].
    public static func expressions(_ definition: String, useRegex: Bool) -> [String] {
        let expressions = useRegex
            ? [definition]
            : definition.unicodeScalars.split(separator: "|", omittingEmptySubsequences: false).map { String($0) }
        return expressions == [""] ? [] : expressions
    }

    public init(useRegex: Bool, mustContain: [String], mustNotContain: [String], episodeFilter: String, smartFilter: Bool,
                ignoreDays: Int) {
        self.mustContain = mustContain.map { TitleExpression($0, useRegex: useRegex) }
        self.mustNotContain = mustNotContain.map { TitleExpression($0, useRegex: useRegex) }
        self.episodeFilter = EpisodeFilter(episodeFilter)
        self.smartFilter = smartFilter
        self.ignoreDays = ignoreDays
    }

    /// The match predicate of §8.2 steps 1–5 for one article. nil: rejected. Otherwise the episode ids to append to
    /// previouslyMatchedEpisodes if the article is accepted (empty when the smart filter is off or found no id).
    /// `articleDate` nil counts as earlier than everything (rejected by ignoreDays when that check applies).
    /// `rejectUnrecognizedEpisodes`: 5.2 behaviour (smart filter on and no episode id → reject); false = 4.6/5.1 (accept).
    public func match(title: String, articleDate: Date?, lastMatch: Date?, previouslyMatched: [String],
                      smart: SmartEpisodeFilter, downloadRepacks: Bool, rejectUnrecognizedEpisodes: Bool) -> [String]? {
        if ignoreDays > 0, let lastMatch {
            let allowedFrom = lastMatch.addingTimeInterval(Double(ignoreDays) * 86_400)
            guard let articleDate, articleDate >= allowedFrom else { return nil }
        }
        guard mustContain.isEmpty || mustContain.contains(where: { $0.matches(title) }),
              !mustNotContain.contains(where: { $0.matches(title) }),
              episodeFilter.matches(title) else { return nil }
        guard smartFilter else { return [] }
        return Self.smartFilterIDs(title: title, id: smart.episodeID(in: title), previouslyMatched: previouslyMatched,
                                   downloadRepacks: downloadRepacks, rejectUnrecognizedEpisodes: rejectUnrecognizedEpisodes)
    }
}
