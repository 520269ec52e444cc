import RSS
import XCTest

/// The episode filter (spec §8.4, vectors §10.2).
final class EpisodeFilterTests: XCTestCase {
    private typealias T = RuleTestSupport

    private func assertFilter(_ filter: String, _ expectations: [String: Bool], file: StaticString = #filePath,
                              line: UInt = #line) {
        for (title, expected) in expectations.sorted(by: { $0.key < $1.key }) {
            XCTAssertEqual(T.passesEpisodeFilter(title, filter), expected, "\(filter) on \(title)", file: file, line: line)
        }
    }

    func testDocumentedExample() {
        assertFilter("1x2;8-15;5;30-;", [
            "Show S01E02 720p": true,
            "Show S01E03": false,
            "Show S01E05": true,
            "Show s01e08": true,
            "Show S01E15": true,
            "Show S01E16": false,
            "Show S01E30": true,
            "Show S01E99": true,
            "Show S02E01": true,
            "Show S10E02": true,
            "Show 1x12": true,
            "Show 01x12": true,
            "Show.2x01": true,
            "Show S1E2": true,
            "Show S01.E02": true,
            "Show S01 E02": true,
            "Show S01_E02": true,
            "Show S01-E02": true,
            "Show S01XE02": true,
            "Show S01E002": false,
            "Show S01E020": false,
            "Show S01E0205": true,
            "Show no episode": false,
        ])
    }

    func testSeasonIsTextual() {
        assertFilter("01x05;", ["S01E05": true, "01x05": true, "S001E05": true, "S1E5": false, "1x05": false])
        assertFilter("1x05;", ["S01E05": true, "S1E5": true, "1x5": true, "1x05": true])
    }

    func testNormalRange() {
        assertFilter("1x25-40;", ["S01E24": false, "S01E25": true, "S01E40": true, "S01E41": false, "S02E30": false])
        assertFilter("1x08-15;", ["S01E08": true, "S01E07": false])
    }

    func testReversedRangeIsIgnored() {
        assertFilter("1x40-25;", ["S01E30": false, "S01E25": false, "S01E40": false])
        assertFilter("1x40-25;3;", ["S01E03": true])
    }

    func testRangeUsesFirstAndLastPieces() {
        assertFilter("1x2-5-9;", ["S01E07": true, "S01E10": false, "S01E02": true, "S01E09": true])
    }

    func testInfiniteRange() {
        assertFilter("3x8-;", ["Show S3E10": true, "Show S4E01": true, "Show S2E99": false, "Show 3x07": false,
                               "Show 3x08": true, "Show 4x01": true])
    }

    func testOnlyTheFirstOccurrenceCountsForRanges() {
        assertFilter("3x8-;", ["Show S03E07 and 3x09": false, "Show 3x09 and S03E07": false, "Show 3x07 and 3x09": false])
        assertFilter("3x8-;", ["Show S03E09 and 3x07": true])
    }

    func testRangeFallsBackToCrossFormat() {
        assertFilter("1x5-8;", ["Show 1x06": true, "Show 01x006": true, "Show 2x06": false])
    }

    func testMalformedFilterRejectsEverything() {
        for filter in ["1x2", "x1;", "1x2; ", "12345x1;", "a1x2;", " 1x2;", "1-2;", "1x", "1;", "1x2;\n\n", "1x2\n3;"] {
            XCTAssertFalse(T.passesEpisodeFilter("Show S01E02 1x2 S12345E01", filter), filter.debugDescription)
        }
    }

    func testWellFormedEdges() {
        assertFilter("1X1;", ["S02E01": false, "S01E01": true])
        assertFilter("1x2;\n", ["S01E02": true])  // `$` stands before a final line feed
        assertFilter("1x;", ["S01E02": false, "S01": false])
        assertFilter("1x;;", ["S01E02": false])
        assertFilter("1234x5;", ["S1234E05": true, "1234x5": true])
        assertFilter("0x3;", ["S00E03": true, "S0E3": true])
    }

    func testWordBoundaryAndTrailingDigit() {
        assertFilter("1x2;", [
            "ShowS01E02": false,
            "Show S01E021": false,
            "Show S01E02x264": true,
            "Show S10E02": true,
            "Show S11E02": true,
            "Show S1E02": true,
            "Show S21E02": false,
            "Show S01E12": false,
            "Show_S01E02": false,
            "S01E02": true,
            "Show.S01E02.": true,
        ])
    }

    func testEpisodeZero() {
        assertFilter("1x0;", ["Show S01E00": true, "Show S01E01": false])
        assertFilter("1x00;", ["Show S01E00": true])
        assertFilter("1x0-3;", ["Show S01E00": true, "Show S01E04": false])
    }

    func testNonNumericRangePiecesAreZero() {
        assertFilter("1xa-3;", ["S01E00": true, "S01E03": true, "S01E04": false])
        assertFilter("1xa-;", ["S01E00": true, "S02E00": true, "S00E05": false])
        assertFilter("1x3-a;", ["S01E03": false, "S01E00": false])
    }

    func testEpisodeTextGoesIntoThePatternUnescaped() {
        assertFilter("1x2|3;", ["Show 3": true, "S01E03": false, "S01E02": true])
        assertFilter("1x(;", ["S01E02": false, "S01E(": false])
        assertFilter("1x(;2;", ["S01E02": true])
    }

    func testUnicodeTitles() {
        assertFilter("1x2;", [
            "番組S01E02": true,  // 番 is no ASCII word character: \b holds before S, as in qBittorrent
            "番組 第2話 S01E02 1080p": true,
            "éS01E02": true,
            "Show S01E02é": true,
            "Show S01E02٣": true,  // an Arabic-Indic digit is \D
            "Show S０１E０２": false,
        ])
        assertFilter("1x2-5;", ["番組S01E03": true, "番組1x04": true])
    }
}
