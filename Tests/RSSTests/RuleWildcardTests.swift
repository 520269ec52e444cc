import RSS
import XCTest

/// Wildcard tokens (spec §8.3): Qt's unanchored, non-path conversion as PCRE reads it.
final class RuleWildcardTests: XCTestCase {
    private typealias T = RuleTestSupport

    /// One wildcard expression, not split on "|".
    private func wildcard(_ title: String, _ expression: String) -> Bool {
        T.accepts(RuleMatcher(useRegex: false, mustContain: [expression], mustNotContain: [], episodeFilter: "",
                              smartFilter: false, ignoreDays: 0), title)
    }

    func testStarAndQuestionMarkMatchAnyCharacterIncludingNewlines() {
        XCTAssertTrue(wildcard("Show\nLTS", "show*lts"))
        XCTAssertTrue(wildcard("showlts", "show*lts"))
        XCTAssertTrue(wildcard("a/b/c", "a*c"))
        XCTAssertTrue(wildcard("a\nb", "a?b"))
        XCTAssertTrue(wildcard("a/b", "a?b"))
        XCTAssertFalse(wildcard("ab", "a?b"))
        XCTAssertTrue(wildcard("xxabyy", "a*"), "unanchored")
    }

    func testMetacharactersAreLiteral() {
        XCTAssertTrue(wildcard("(1080p)", "(1080p)"))
        XCTAssertTrue(wildcard("a+b", "a+b"))
        XCTAssertFalse(wildcard("aab", "a+b"))
        XCTAssertTrue(wildcard("$x^", "$x^"))
        XCTAssertTrue(wildcard("{x}", "{x}"))
        XCTAssertTrue(wildcard("a|b", "a|b"))
        XCTAssertFalse(wildcard("22x04", "22.04"))
        XCTAssertTrue(wildcard(#"a\b"#, #"a\b"#))
        XCTAssertTrue(wildcard("a]b", "a]b"))
        XCTAssertTrue(wildcard("a-b#c&d", "a-b#c&d"))
    }

    func testClasses() {
        XCTAssertTrue(wildcard("s01e02", "s01e0[1-3]"))
        XCTAssertFalse(wildcard("s01e02", "s01e0[!1-3]"))
        XCTAssertTrue(wildcard("s01e05", "s01e0[!1-3]"))
        XCTAssertTrue(wildcard("b", "[A-C]"), "classes are case-insensitive")
        XCTAssertFalse(wildcard("B", "[!a-c]"))
        XCTAssertTrue(wildcard("D", "[!a-c]"))
        XCTAssertFalse(wildcard("abc", "[^a]bc"), "^ is copied, so PCRE negates")
        XCTAssertTrue(wildcard("xbc", "[^a]bc"))
        XCTAssertTrue(wildcard("-", "[a-]"))
        XCTAssertTrue(wildcard("+", "[%--]"))
        XCTAssertTrue(wildcard("*", "[*?]"), "* and ? are members inside a class")
        XCTAssertFalse(wildcard("x", "[*?]"))
    }

    func testClosingBracketFirstIsAMember() {
        XCTAssertTrue(wildcard("a]b", "a[]]b"))
        XCTAssertFalse(wildcard("a[b", "a[]]b"))
        XCTAssertTrue(wildcard("axb", "a[!]]b"))
        XCTAssertFalse(wildcard("a]b", "a[!]]b"))
        XCTAssertTrue(wildcard("a^b", "a[]^]b"))
    }

    func testBackslashInsideClassIsLiteral() {
        XCTAssertTrue(wildcard(#"a\b"#, #"a[\]b"#))
        XCTAssertFalse(wildcard("a]b", #"a[\]b"#))
        XCTAssertTrue(wildcard(#"a\b"#, #"a[x\]b"#))
        XCTAssertTrue(wildcard("adb", #"a[\d]b"#), #"[\d] holds a backslash and a d"#)
        XCTAssertFalse(wildcard("a5b", #"a[\d]b"#))
    }

    func testICUSetSyntaxIsLiteral() {
        XCTAssertTrue(wildcard("[", "[[]"))
        XCTAssertTrue(wildcard("&", "[a&&b]"))
        XCTAssertFalse(wildcard("c", "[a&&b]"))
        XCTAssertTrue(wildcard("a[b", "a[[]b"))
    }

    func testUnterminatedBracketNeverMatches() {
        for token in ["s01e0[1-3", "[", "[!", "[]", "[!]", "show[x"] {
            XCTAssertFalse(wildcard(token, token), token)
            XCTAssertFalse(T.contains("show s01e0[1-3 [ [! [] x", token), token)
            XCTAssertTrue(T.notContains("show s01e0[1-3 [ [! [] x", token), token)
        }
        XCTAssertFalse(T.contains("show 1080p", "show 1080p [x"), "one invalid token fails the expression")
        XCTAssertTrue(T.contains("show 1080p", "[x|show"), "other alternatives still match")
    }

    func testReversedRangeNeverMatches() {
        XCTAssertFalse(wildcard("b", "[z-a]"))
        XCTAssertFalse(wildcard("a-", "[a--]"))
    }

    func testPOSIXClasses() {
        XCTAssertTrue(wildcard("S01", "s[[:digit:]][[:digit:]]"))
        XCTAssertFalse(wildcard("Sxx", "s[[:digit:]]"))
        XCTAssertTrue(wildcard("x", "[[:digit:]x]"))
        XCTAssertTrue(wildcard("a", "[[:^digit:]]"))
        XCTAssertFalse(wildcard("5", "[[:^digit:]]"))
        XCTAssertFalse(wildcard("é", "[[:alpha:]]"), "ASCII only, as PCRE without Unicode properties")
        XCTAssertTrue(wildcard("A", "[[:lower:]]"), "caseless lower is alpha")
        XCTAssertFalse(wildcard("digit", "[:digit:]"), "PCRE refuses a POSIX class outside a class")
        XCTAssertFalse(wildcard("a", "[[:nosuch:]]"))
        XCTAssertFalse(wildcard("a", "[[.a.]]"), "collating elements are refused")
        XCTAssertFalse(wildcard("a", "[[:digit:]-a]"), "a range cannot start at a class")
        XCTAssertTrue(wildcard("-", "[[:digit:]-]"))
    }

    func testUnicodeLiteralsAndClasses() {
        XCTAssertTrue(wildcard("ÉPISODE", "épisode"))
        XCTAssertTrue(wildcard("É", "[é]"))
        XCTAssertTrue(wildcard("ж", "[а-я]"))
        XCTAssertTrue(wildcard("Ж", "[а-я]"))
        XCTAssertTrue(wildcard("🎬", "[🎬]"))
        XCTAssertTrue(wildcard("x🎬y", "x[!a]y"))
        XCTAssertTrue(wildcard("ſ", "s"), "PCRE folds s, S and long s together")
        XCTAssertFalse(wildcard("ß", "ss"))
        XCTAssertTrue(wildcard("e\u{301}", "e?"), "a combining mark is its own character")
    }
}
