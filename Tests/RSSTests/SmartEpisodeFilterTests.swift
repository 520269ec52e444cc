import Foundation
import RSS
import XCTest

/// The smart episode filter (spec §8.5, vectors §10.3, with 5.2's join).
final class SmartEpisodeFilterTests: XCTestCase {
    private typealias T = RuleTestSupport

    func testDefaultFilters() {
        XCTAssertEqual(SmartEpisodeFilter.defaultFilters,
                       [#"s(\d+)e(\d+)"#, #"(\d+)x(\d+)"#, #"(\d{4}[.\-]\d{1,2}[.\-]\d{1,2})"#,
                        #"(\d{1,2}[.\-]\d{1,2}[.\-]\d{4})"#])
    }

    func testEpisodeIDs() {
        let vectors: [(String, String)] = [
            ("Show.S01E02.720p", "1x2"),
            ("Show 1x02", "1x2"),
            ("Show.2017.01.05.HDTV", "2017.01.05"),
            ("Show 05-01-2017", "05-01-2017"),
            ("Show_S01E02_", "1x2"),
            ("Show S01E02E03", ""),
            ("Show.part.1x2x3", ""),
            ("Show 1920x1080 S01E02", "1920x1080"),
            ("Movie 2017", ""),
            ("Show E02", ""),
            ("show s001e0010", "1x10"),
            ("Show S01E02 REPACK", "1x2"),
            ("", ""),
        ]
        for (title, id) in vectors {
            XCTAssertEqual(T.smart.episodeID(in: title), id, title)
        }
    }

    func testCapturesBeyondInt32StayVerbatim() {
        XCTAssertEqual(T.smart.episodeID(in: "Show S01E99999999999"), "1x99999999999")
        XCTAssertEqual(T.smart.episodeID(in: "Show S01E2147483647"), "1x2147483647")
        XCTAssertEqual(T.smart.episodeID(in: "Show S01E2147483648"), "1x2147483648")
        XCTAssertEqual(T.smart.episodeID(in: "Show S01E002147483648"), "1x002147483648")
    }

    func testUnicodeTitles() {
        XCTAssertEqual(T.smart.episodeID(in: "進撃の巨人 S01E02 1080p"), "1x2")
        XCTAssertEqual(T.smart.episodeID(in: "進撃の巨人S01E02"), "", "Unicode \\b: no boundary after a CJK letter")
        XCTAssertEqual(T.smart.episodeID(in: "Émission S03E04"), "3x4")
        XCTAssertEqual(T.smart.episodeID(in: "Show S０１E０２"), "０１x０２",
                       "Unicode digits are \\d but not integers for Qt")
    }

    func testCustomFilters() {
        XCTAssertEqual(SmartEpisodeFilter(filters: ["ep (\\d+)"]).episodeID(in: "Show ep 07"), "",
                       "extended syntax drops the space")
        XCTAssertEqual(SmartEpisodeFilter(filters: ["ep\\ (\\d+)"]).episodeID(in: "Show ep 07"), "7")
        XCTAssertEqual(SmartEpisodeFilter(filters: ["ep(\\d+) # a comment"]).episodeID(in: "Show ep07"), "",
                       "the comment runs to the end of the joined pattern, which no longer compiles")
        XCTAssertEqual(SmartEpisodeFilter(filters: ["(part)(\\d+)"]).episodeID(in: "Show PART3"), "PARTx3")
        XCTAssertEqual(SmartEpisodeFilter(filters: ["(x)?y(\\d+)"]).episodeID(in: "Show y5"), "5",
                       "a group that did not take part is skipped")
        XCTAssertEqual(SmartEpisodeFilter(filters: ["v( )(\\d+)"]).episodeID(in: "Show v5"), "5",
                       "extended syntax leaves an empty group, which is skipped")
    }

    func testEmptyAndInvalidFilters() {
        XCTAssertEqual(SmartEpisodeFilter(filters: []).episodeID(in: "Show S01E02"), "")
        XCTAssertEqual(SmartEpisodeFilter(filters: ["", "s(\\d+)e(\\d+)"]).episodeID(in: "Show S01E02"), "",
                       "an empty line matches at the first boundary, with no captures")
        XCTAssertEqual(SmartEpisodeFilter(filters: ["s(\\d+)e(\\d+)", "("]).episodeID(in: "Show S01E02"), "")
    }

    // MARK: the smart filter in the rule (§10.3 sequence)

    private func run(_ titles: [String], repacks: Bool, reject: Bool = false) -> ([Bool], [String]) {
        let matcher = T.matcher(smartFilter: true)
        var history: [String] = []
        var verdicts: [Bool] = []
        for title in titles {
            let ids = matcher.match(title: title, articleDate: Date(), lastMatch: nil, previouslyMatched: history,
                                    smart: T.smart, downloadRepacks: repacks, rejectUnrecognizedEpisodes: reject)
            verdicts.append(ids != nil)
            history += ids ?? []
        }
        return (verdicts, history)
    }

    private let sequence = ["Show S01E02 720p", "Show S01E02 1080p", "Show S01E02 REPACK", "Show S01E02 REPACK 720p",
                            "Show S01E02 PROPER REPACK", "Show S01E02 PROPER"]

    func testSequenceWithRepacks() {
        let (verdicts, history) = run(sequence, repacks: true)
        XCTAssertEqual(verdicts, [true, false, true, false, true, false])
        XCTAssertEqual(history, ["1x2", "1x2-REPACK", "1x2-REPACK-PROPER", "1x2-REPACK", "1x2-PROPER"])
    }

    func testSequenceWithoutRepacks() {
        let (verdicts, history) = run(sequence, repacks: false)
        XCTAssertEqual(verdicts, [true, false, false, false, false, false])
        XCTAssertEqual(history, ["1x2"])
    }

    func testRepackStepByStep() {
        let matcher = T.matcher(smartFilter: true)
        func match(_ title: String, _ history: [String], repacks: Bool = true) -> [String]? {
            matcher.match(title: title, articleDate: nil, lastMatch: nil, previouslyMatched: history, smart: T.smart,
                          downloadRepacks: repacks, rejectUnrecognizedEpisodes: false)
        }
        XCTAssertEqual(match("Show S01E02", []), ["1x2"])
        XCTAssertEqual(match("Show S01E02 proper", ["1x2"]), ["1x2-PROPER"], "case-insensitive")
        XCTAssertEqual(match("Show S01E02 PROPERTY", ["1x2"]), ["1x2-PROPER"], "a substring counts")
        XCTAssertEqual(match("Show S01E02 REPACK", ["1x2-REPACK"]), ["1x2"], "only the bare id counts as seen")
        XCTAssertEqual(match("Show S01E02 REPAC\u{212A}", ["1x2"]), ["1x2-REPACK"], "the Kelvin sign folds to k")
        XCTAssertNil(match("Show S01E02 REPACK", ["1x2", "1x2-REPACK"]))
        XCTAssertNil(match("Show S01E02 REPACK", ["1x2"], repacks: false))
        XCTAssertEqual(match("Show S01E02 REPACK PROPER", ["1x2", "1x2-REPACK"]),
                       ["1x2-REPACK-PROPER", "1x2-REPACK", "1x2-PROPER"])
        XCTAssertEqual(match("Show S01E03 REPACK", ["1x2"]), ["1x3"], "a new episode records the bare id")
    }

    func testUnrecognizedEpisode() {
        XCTAssertEqual(run(["Movie 2017"], repacks: true, reject: false).0, [true])
        XCTAssertEqual(run(["Movie 2017"], repacks: true, reject: false).1, [])
        XCTAssertEqual(run(["Movie 2017"], repacks: true, reject: true).0, [false])
    }

    func testEmptyIDFromAnEmptyFilterLineIsUnrecognized() {
        let smart = SmartEpisodeFilter(filters: [""])
        let matcher = T.matcher(smartFilter: true)
        XCTAssertEqual(matcher.match(title: "Show S01E02", articleDate: nil, lastMatch: nil, previouslyMatched: [],
                                     smart: smart, downloadRepacks: true, rejectUnrecognizedEpisodes: false), [])
        XCTAssertNil(matcher.match(title: "Show S01E02", articleDate: nil, lastMatch: nil, previouslyMatched: [],
                                   smart: smart, downloadRepacks: true, rejectUnrecognizedEpisodes: true))
    }
}
