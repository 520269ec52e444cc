import Foundation
import RSS
import XCTest

final class RuleMatcherTests: XCTestCase {
    private typealias T = RuleTestSupport

    // MARK: §10.1 mustContain / mustNotContain

    func testWildcardVectors() {
        let vectors: [(title: String, expression: String, contains: Bool)] = [
            ("Ubuntu 22.04 LTS", "ubuntu lts", true),
            ("Ubuntu 22.04 LTS", "lts ubuntu", true),
            ("Ubuntu 22.04 LTS", "ubuntu*lts", true),
            ("Ubuntu 22.04 LTS", "lts*ubuntu", false),
            ("Ubuntu 22.04 LTS", "debian|ubuntu", true),
            ("Ubuntu 22.04 LTS", "22.0?", true),
            ("Ubuntu 22.04 LTS", "220", false),
            ("Show.S01E02.720p", "720p|1080p", true),
            ("Show.S01E02.720p", "show 1080p", false),
            ("Show.S01E02.720p", "s01e0[1-3]", true),
            ("Show.S01E02.720p", "s01e0[!1-3]", false),
        ]
        for vector in vectors {
            XCTAssertEqual(T.contains(vector.title, vector.expression), vector.contains,
                           "mustContain \(vector.expression) on \(vector.title)")
            XCTAssertEqual(T.notContains(vector.title, vector.expression), !vector.contains,
                           "mustNotContain \(vector.expression) on \(vector.title)")
        }
    }

    func testEmptyAlternativeMatchesEverything() {
        XCTAssertTrue(T.contains("Show.S01E02.720p", "x265|"))
        XCTAssertFalse(T.notContains("Show.S01E02.720p", "x265|"))
        XCTAssertFalse(T.notContains("Show.S01E02.720p", "|x265"))
        XCTAssertFalse(T.notContains("Anything at all", "a||b"))
    }

    func testEmptyDefinitionIsNoCondition() {
        XCTAssertTrue(T.contains("Show.S01E02.720p", ""))
        XCTAssertTrue(T.notContains("Show.S01E02.720p", ""))
        XCTAssertTrue(T.contains("Show.S01E02.720p", "", regex: true))
        XCTAssertTrue(T.notContains("Show.S01E02.720p", "", regex: true))
    }

    func testWhitespaceOnlyWildcardMatchesEverything() {
        XCTAssertTrue(T.contains("Show", "   "))
        XCTAssertFalse(T.notContains("Show", " \t "))
        XCTAssertFalse(T.notContains("Show", "x265| "))
    }

    func testRegexVectors() {
        XCTAssertTrue(T.contains("Show.S01E02.720p", #"S\d+E\d+"#, regex: true))
        XCTAssertFalse(T.notContains("Show.S01E02.720p", #"S\d+E\d+"#, regex: true))
        XCTAssertTrue(T.contains("Show.S01E02.720p", #"s\d+e\d+"#, regex: true), "case-insensitive")
        XCTAssertTrue(T.contains("Show.S01E02.720p", "E02", regex: true), "unanchored")
        XCTAssertFalse(T.contains("Show.S01E02.720p", "^E02", regex: true))
        XCTAssertTrue(T.contains("Show.S01E02.720p", "x265|720p", regex: true), "| is regex alternation")
        XCTAssertFalse(T.contains("Show.S01E02.720p", "show 720p", regex: true), "whitespace is not AND in regex mode")
        XCTAssertTrue(T.contains("Show 720p", "show 720p", regex: true))
    }

    func testInvalidRegexNeverMatches() {
        for pattern in ["(", "[", "a{2,1}", "*x", #"\"#] {
            XCTAssertFalse(T.contains("Show.S01E02.720p (", pattern, regex: true), pattern)
            XCTAssertTrue(T.notContains("Show.S01E02.720p (", pattern, regex: true), pattern)
        }
    }

    func testRegexEmptyAlternativeMatchesEverything() {
        XCTAssertTrue(T.contains("Show", "x265|", regex: true))
        XCTAssertFalse(T.notContains("Show", "x265|", regex: true))
    }

    func testAnyMustContainExpressionSuffices() {
        let matcher = RuleMatcher(useRegex: true, mustContain: ["x265", "720p"], mustNotContain: [], episodeFilter: "",
                                  smartFilter: false, ignoreDays: 0)
        XCTAssertTrue(T.accepts(matcher, "Show 720p"))
        XCTAssertFalse(T.accepts(matcher, "Show 1080p"))
    }

    func testAnyMustNotContainExpressionRejects() {
        let matcher = T.matcher(mustContain: "show", mustNotContain: "cam|ts")
        XCTAssertTrue(T.accepts(matcher, "Show 1080p WEB"))
        XCTAssertFalse(T.accepts(matcher, "Show CAM"))
        XCTAssertFalse(T.accepts(matcher, "Show TS 1080p"))
        XCTAssertFalse(T.accepts(matcher, "Other 1080p"))
    }

    // MARK: expressions(_:useRegex:)

    func testExpressionsWildcardSplitsOnEveryBar() {
        XCTAssertEqual(RuleMatcher.expressions("a|b", useRegex: false), ["a", "b"])
        XCTAssertEqual(RuleMatcher.expressions("a|", useRegex: false), ["a", ""])
        XCTAssertEqual(RuleMatcher.expressions("|a", useRegex: false), ["", "a"])
        XCTAssertEqual(RuleMatcher.expressions("a||b", useRegex: false), ["a", "", "b"])
        XCTAssertEqual(RuleMatcher.expressions("|", useRegex: false), ["", ""])
        XCTAssertEqual(RuleMatcher.expressions(#"a\|b"#, useRegex: false), [#"a\"#, "b"], "no escaping")
        XCTAssertEqual(RuleMatcher.expressions(" ", useRegex: false), [" "])
        XCTAssertEqual(RuleMatcher.expressions("ubuntu lts", useRegex: false), ["ubuntu lts"])
    }

    func testExpressionsRegexIsOneExpression() {
        XCTAssertEqual(RuleMatcher.expressions("a|b", useRegex: true), ["a|b"])
        XCTAssertEqual(RuleMatcher.expressions("a|", useRegex: true), ["a|"])
        XCTAssertEqual(RuleMatcher.expressions(" ", useRegex: true), [" "])
    }

    func testExpressionsSingleEmptyStringIsNoExpression() {
        XCTAssertEqual(RuleMatcher.expressions("", useRegex: false), [])
        XCTAssertEqual(RuleMatcher.expressions("", useRegex: true), [])
    }

    // MARK: §10.4 ignoreDays

    func testIgnoreDays() {
        let matcher = T.matcher(ignoreDays: 3)
        let lastMatch = T.utc("01 Jan 2024 00:00:00")
        func match(_ date: Date?) -> [String]? {
            matcher.match(title: "Show", articleDate: date, lastMatch: lastMatch, previouslyMatched: [], smart: T.smart,
                          downloadRepacks: true, rejectUnrecognizedEpisodes: false)
        }
        XCTAssertNil(match(T.utc("03 Jan 2024 23:59:59")))
        XCTAssertEqual(match(T.utc("04 Jan 2024 00:00:00")), [])
        XCTAssertEqual(match(T.utc("10 Jan 2024 00:00:00")), [])
        XCTAssertNil(match(T.utc("31 Dec 2023 00:00:00")))
        XCTAssertNil(match(nil), "a missing date is earlier than everything")
    }

    func testIgnoreDaysSkippedWithoutLastMatchOrWhenZero() {
        let early = T.utc("01 Jan 2000 00:00:00")
        let lastMatch = T.utc("01 Jan 2024 00:00:00")
        for (days, last) in [(3, nil), (0, lastMatch), (-1, lastMatch)] as [(Int, Date?)] {
            let matcher = T.matcher(ignoreDays: days)
            for date in [early, nil] as [Date?] {
                XCTAssertEqual(matcher.match(title: "Show", articleDate: date, lastMatch: last, previouslyMatched: [],
                                             smart: T.smart, downloadRepacks: true, rejectUnrecognizedEpisodes: true), [],
                               "ignoreDays \(days), lastMatch \(String(describing: last)), date \(String(describing: date))")
            }
        }
    }

    func testIgnoreDaysComesBeforeTheOtherChecks() {
        let matcher = T.matcher(mustContain: "show", ignoreDays: 1)
        let lastMatch = T.utc("01 Jan 2024 00:00:00")
        XCTAssertNil(matcher.match(title: "Show", articleDate: T.utc("01 Jan 2024 12:00:00"), lastMatch: lastMatch,
                                   previouslyMatched: [], smart: T.smart, downloadRepacks: true,
                                   rejectUnrecognizedEpisodes: false))
        XCTAssertNil(matcher.match(title: "Other", articleDate: T.utc("02 Jan 2024 00:00:00"), lastMatch: lastMatch,
                                   previouslyMatched: [], smart: T.smart, downloadRepacks: true,
                                   rejectUnrecognizedEpisodes: false))
        XCTAssertEqual(matcher.match(title: "Show", articleDate: T.utc("02 Jan 2024 00:00:00"), lastMatch: lastMatch,
                                     previouslyMatched: [], smart: T.smart, downloadRepacks: true,
                                     rejectUnrecognizedEpisodes: false), [])
    }

    // MARK: all conditions together

    func testAllConditionsTogether() {
        let matcher = T.matcher(mustContain: "show 1080p|show 720p", mustNotContain: "cam", episodeFilter: "1x2-4;",
                                smartFilter: true)
        func match(_ title: String, _ previous: [String] = []) -> [String]? {
            matcher.match(title: title, articleDate: Date(), lastMatch: nil, previouslyMatched: previous, smart: T.smart,
                          downloadRepacks: true, rejectUnrecognizedEpisodes: true)
        }
        XCTAssertEqual(match("Show S01E03 1080p"), ["1x3"])
        XCTAssertNil(match("Show S01E03 1080p", ["1x3"]))
        XCTAssertEqual(match("Show S01E03 1080p REPACK", ["1x3"]), ["1x3-REPACK"])
        XCTAssertNil(match("Show S01E05 1080p"), "episode filter")
        XCTAssertNil(match("Show S01E03 480p"), "mustContain")
        XCTAssertNil(match("Show S01E03 720p CAM"), "mustNotContain")
    }

    func testSmartFilterOffRecordsNothing() {
        let matcher = T.matcher(mustContain: "show")
        XCTAssertEqual(matcher.match(title: "Show S01E02", articleDate: nil, lastMatch: nil, previouslyMatched: ["1x2"],
                                     smart: T.smart, downloadRepacks: false, rejectUnrecognizedEpisodes: true), [])
    }

    // MARK: Unicode

    func testUnicodeTitles() {
        XCTAssertTrue(T.contains("Ünïcödé Shôw S01E02", "ünïcödé shôw"))
        XCTAssertTrue(T.contains("ÜNÏCÖDÉ", "ünïcödé"), "case folds beyond ASCII")
        XCTAssertTrue(T.contains("進撃の巨人 第2話 1080p", "進撃の巨人 1080p"))
        XCTAssertTrue(T.contains("進撃の巨人 第2話", "第?話"))
        XCTAssertTrue(T.contains("Show 🎬 1080p", "show???1080p"), "? is one character, even outside the BMP")
        XCTAssertFalse(T.contains("Show 🎬🎬 1080p", "show???1080p"))
        XCTAssertTrue(T.contains("Show 🎬🎬 1080p", "show????1080p"))
        XCTAssertTrue(T.contains("Show 🎬 1080p", "show*🎬*1080p"))
        XCTAssertTrue(T.contains("Привет Мир", "ПРИВЕТ мир", regex: true))
        XCTAssertFalse(T.contains("Straße", "strasse"), "one character folds to one character, as PCRE")
        XCTAssertFalse(T.contains("STRASSE", "straße"))
        XCTAssertTrue(T.contains("Caf\u{E9}", "caf\u{C9}"))
    }

    func testNonBreakingSpaceIsNotAWildcardSeparator() {
        XCTAssertFalse(T.contains("Show 1080p", "show\u{A0}1080p"))
        XCTAssertTrue(T.contains("Show\u{A0}1080p", "show\u{A0}1080p"))
        XCTAssertTrue(T.contains("1080p Show", "show\t1080p"))
    }

    // MARK: scale

    func testManyTitlesAgainstManyRules() {
        var rules: [RuleMatcher] = []
        for index in 0..<20 {
            switch index % 5 {
            case 0: rules.append(T.matcher(mustContain: "show\(index) 1080p|show\(index) 720p", mustNotContain: "cam|ts|"))
            case 1: rules.append(T.matcher(mustContain: "show\(index)*s0[1-3]e*", episodeFilter: "1x2;8-15;5;30-;",
                                           smartFilter: true))
            case 2: rules.append(T.matcher(useRegex: true, mustContain: #"show\#(index)\W+s(\d+)e(\d+)"#,
                                           mustNotContain: "(invalid", smartFilter: true, ignoreDays: 2))
            case 3: rules.append(T.matcher(mustContain: "[!x]how\(index) ?1080p", episodeFilter: "2x5-;"))
            default: rules.append(T.matcher(mustContain: "*", mustNotContain: "[unterminated", episodeFilter: "1x2"))
            }
        }
        let qualities = ["720p", "1080p", "2160p CAM", "WEB-DL", "REPACK 1080p"]
        var history = Array(repeating: [String](), count: rules.count)
        var accepted = 0
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        for index in 0..<5_000 {
            let title = "Show\(index % 20) S0\(index % 4)E\(index % 40) \(qualities[index % qualities.count]) Ünï \(index)"
            let date = start.addingTimeInterval(Double(index) * 3_600)
            for (ruleIndex, rule) in rules.enumerated() {
                if let ids = rule.match(title: title, articleDate: date, lastMatch: start,
                                        previouslyMatched: history[ruleIndex], smart: T.smart, downloadRepacks: true,
                                        rejectUnrecognizedEpisodes: index % 2 == 0) {
                    history[ruleIndex] += ids
                    accepted += 1
                }
            }
        }
        XCTAssertGreaterThan(accepted, 0)
    }
}
