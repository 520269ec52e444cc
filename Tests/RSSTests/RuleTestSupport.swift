import Foundation
import RSS

/// Builds matchers the way a stored rule would, for the matcher tests.
enum RuleTestSupport {
    static let smart = SmartEpisodeFilter(filters: SmartEpisodeFilter.defaultFilters)

    static func matcher(useRegex: Bool = false, mustContain: String = "", mustNotContain: String = "",
                        episodeFilter: String = "", smartFilter: Bool = false, ignoreDays: Int = 0) -> RuleMatcher {
        RuleMatcher(useRegex: useRegex, mustContain: RuleMatcher.expressions(mustContain, useRegex: useRegex),
                    mustNotContain: RuleMatcher.expressions(mustNotContain, useRegex: useRegex),
                    episodeFilter: episodeFilter, smartFilter: smartFilter, ignoreDays: ignoreDays)
    }

    static func accepts(_ matcher: RuleMatcher, _ title: String) -> Bool {
        matcher.match(title: title, articleDate: Date(), lastMatch: nil, previouslyMatched: [], smart: smart,
                      downloadRepacks: true, rejectUnrecognizedEpisodes: false) != nil
    }

    /// Whether `title` passes `expression` as the rule's mustContain.
    static func contains(_ title: String, _ expression: String, regex: Bool = false) -> Bool {
        accepts(matcher(useRegex: regex, mustContain: expression), title)
    }

    /// Whether `title` passes `expression` as the rule's mustNotContain.
    static func notContains(_ title: String, _ expression: String, regex: Bool = false) -> Bool {
        accepts(matcher(useRegex: regex, mustNotContain: expression), title)
    }

    static func passesEpisodeFilter(_ title: String, _ filter: String) -> Bool {
        accepts(matcher(episodeFilter: filter), title)
    }

    /// An RFC 2822 style UTC date, "03 Jan 2024 23:59:59".
    static func utc(_ text: String) -> Date {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "dd MMM yyyy HH:mm:ss"
        return formatter.date(from: text)!
    }
}
