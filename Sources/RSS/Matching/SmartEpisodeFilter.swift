import Foundation

/// qBittorrent's smart episode filter: the episode id a title carries (spec §8.5).
public struct SmartEpisodeFilter: Sendable {
    /// qBittorrent's default `rss_smart_episode_filters`: s01e01, 01x01, 2017.01.01 and 01.01.2017.
    public static let defaultFilters: [String] = [
        #"s(\d+)e(\d+)"#,
        #"(\d+)x(\d+)"#,
        #"(\d{4}[.\-]\d{1,2}[.\-]\d{1,2})"#,
        #"(\d{1,2}[.\-]\d{1,2}[.\-]\d{4})"#,
    ]

    /// nil when the joined pattern is invalid: no title then has an id.
    private let regex: MatcherRegex?

    /// `filters`: the rss_smart_episode_filters lines (empty lines kept: they match anywhere with no captures).
    public init(filters: [String]) {
        // 5.2's join; 5.1's `)|(?:` join, which bounds only the first and last alternatives, is not reproduced.
        let pattern = "(?:_|\\b)(?:" + filters.joined(separator: "|") + ")(?:_|\\b)"
        regex = MatcherRegex(pattern, options: [.caseInsensitive, .allowCommentsAndWhitespace])
    }

    /// "1x2", "2017.01.05", … ; "" when no filter matches. Uses the fixed 5.2 join `(?:_|\b)(?:F1|F2|…)(?:_|\b)`
    /// (we deliberately do not reproduce 5.1's broken join), case-insensitive, extended syntax
    /// (allowCommentsAndWhitespace), Unicode-aware \d \b as far as ICU does by default.
    /// The leftmost match's non-empty captures, each written as a number when it reads as a 32-bit integer,
    /// joined with "x".
    public func episodeID(in title: String) -> String {
        guard let match = regex?.firstMatch(in: title) else { return "" }
        var parts: [String] = []
        for group in stride(from: 1, to: match.numberOfRanges, by: 1) {
            guard let range = Range(match.range(at: group), in: title), !range.isEmpty else { continue }
            let capture = String(title[range])
            parts.append(QtInteger.parse(capture).map(String.init) ?? capture)
        }
        return parts.joined(separator: "x")
    }
}
