/// A rule's episode filter, e.g. `1x2;8-15;5;30-;`, compiled (spec §8.4).
/// qBittorrent's patterns run without Unicode properties, so `\b`, `\d` and `\D` are written out with their
/// ASCII meaning (ICU's would be Unicode's); the lookarounds run case-sensitively so that ICU does not fold
/// "ſ" or the Kelvin sign into the word characters, and letters are one-character sets so that they fold
/// per character, as in PCRE.
struct EpisodeFilter: Sendable {
    private enum Condition {
        /// No filter: every title passes.
        case none
        /// A non-empty filter not of the form `<1-4 digits>x…;`: no title passes.
        case malformed
        /// The title passes when one of the parts accepts it.
        case parts(season: Int, singles: [MatcherRegex?], ranges: [EpisodeRange])
    }

    /// A part with a hyphen, checked against the first season and episode numbers the title shows.
    private enum EpisodeRange {
        /// `A-`: episode A onwards in the season, and every later season.
        case from(Int)
        /// `A-B`: episodes A through B in the season.
        case within(ClosedRange<Int>)
    }

    private let condition: Condition

    init(_ filter: String) {
        guard !filter.isEmpty else {
            condition = .none
            return
        }
        guard let (seasonText, body) = Self.split(filter) else {
            condition = .malformed
            return
        }
        var singles: [MatcherRegex?] = []
        var ranges: [EpisodeRange] = []
        for piece in body.split(separator: ";") {
            var episode = piece[...]
            while episode.count > 1, episode.first == "0" { episode.removeFirst() }
            if episode.last == "-" {
                ranges.append(.from(QtInteger.value(Self.string(episode.dropLast()))))
            } else if episode.contains("-") {
                // The first and last pieces bound the range; a reversed range is ignored.
                let bounds = episode.split(separator: "-", omittingEmptySubsequences: false)
                let first = QtInteger.value(Self.string(bounds.first!)), last = QtInteger.value(Self.string(bounds.last!))
                if first <= last { ranges.append(.within(first...last)) }
            } else {
                // Season and episode go into the pattern as written (not escaped), as qBittorrent does.
                let episodeText = Self.string(episode)
                let pattern = Self.wordBoundary + "(?:[s]0?" + seasonText + "[ -_\\.]?[e]0?" + episodeText + "|"
                    + seasonText + "[x]0?" + episodeText + ")" + Self.episodeEnd
                singles.append(MatcherRegex(pattern))
            }
        }
        condition = .parts(season: Int(seasonText)!, singles: singles, ranges: ranges)
    }

    /// Whether the title passes the filter.
    func matches(_ title: String) -> Bool {
        switch condition {
        case .none:
            return true
        case .malformed:
            return false
        case .parts(let season, let singles, let ranges):
            if singles.contains(where: { $0?.matches(title) ?? false }) { return true }
            guard !ranges.isEmpty, let found = Self.seasonAndEpisode(in: title) else { return false }
            return ranges.contains { range in
                switch range {
                case .from(let first): (found.season == season && found.episode >= first) || found.season > season
                case .within(let episodes): found.season == season && episodes.contains(found.episode)
                }
            }
        }
    }

    /// The filter as `(^\d{1,4})x(.*;$)` reads it, case-insensitively: the season digits and the characters
    /// after the `x` up to the final `;` (`$` may stand before one final line feed); nil when it does not match.
    private static func split(_ filter: String) -> (season: String, body: [Unicode.Scalar])? {
        let scalars = Array(filter.unicodeScalars)
        let digits = scalars.prefix { ("0"..."9").contains($0) }.count
        guard (1...4).contains(digits), digits < scalars.count, scalars[digits] == "x" || scalars[digits] == "X" else {
            return nil
        }
        var body = scalars[(digits + 1)...]
        if body.last == "\n" { body.removeLast() }
        guard body.last == ";", !body.contains("\n") else { return nil }
        return (string(scalars[..<digits]), Array(body))
    }

    private static func string<S: Sequence<Unicode.Scalar>>(_ scalars: S) -> String {
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        return text
    }

    /// The season and episode numbers of the first `S..E..` in the title, else of the first `..x..`.
    private static func seasonAndEpisode(in title: String) -> (season: Int, episode: Int)? {
        guard let match = seasonEpisodePattern?.firstMatch(in: title) ?? crossPattern?.firstMatch(in: title) else {
            return nil
        }
        func number(_ group: Int) -> Int {
            Range(match.range(at: group), in: title).map { QtInteger.value(title[$0]) } ?? 0
        }
        return (number(1), number(2))
    }

    /// PCRE's `\b` without Unicode properties.
    private static let wordBoundary =
        "(?-i:(?<![A-Za-z0-9_])(?=[A-Za-z0-9_])|(?<=[A-Za-z0-9_])(?![A-Za-z0-9_]))"
    /// `(?:\D|\b)`: the episode number is not followed by another digit.
    private static let episodeEnd = "(?:[^0-9]|" + wordBoundary + ")"
    private static let seasonEpisodePattern =
        MatcherRegex(wordBoundary + "[s]0?([0-9]{1,4})[ -_\\.]?[e](0?[0-9]{1,4})" + episodeEnd)
    private static let crossPattern = MatcherRegex(wordBoundary + "([0-9]{1,4})[x](0?[0-9]{1,4})" + episodeEnd)
}
