import Foundation
import XCTest

@testable import RSS

final class FeedDateTests: XCTestCase {
    private func utc(_ y: Int, _ mo: Int, _ d: Int, _ h: Int = 0, _ mi: Int = 0, _ s: Int = 0) -> Date {
        Date(timeIntervalSince1970: TimeInterval(FeedCalendar.seconds(year: y, month: mo, day: d, hour: h, minute: mi,
                                                                      second: s)))
    }

    private func rssFormatted(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> String? {
        guard let date = FeedDate.rss(text) else { return nil }
        XCTAssertEqual(date.offset, 0, "RSS dates are kept in UTC", file: file, line: line)
        return date.formatted
    }

    // MARK: - Spec §10.5

    func testSpecRSSDateVectors() {
        XCTAssertEqual(rssFormatted("Mon, 05 Feb 2024 12:00:00 +0200"), "05 Feb 2024 10:00:00 +0000")
        XCTAssertEqual(rssFormatted("05 Feb 2024 10:00 GMT"), "05 Feb 2024 10:00:00 +0000")
        XCTAssertEqual(rssFormatted("Mon, 05 Feb 2024 10:00:00 EST"), "05 Feb 2024 15:00:00 +0000")
        XCTAssertEqual(rssFormatted("Monday, 05-Feb-24 10:00:00 GMT"), "05 Feb 2024 10:00:00 +0000")
        XCTAssertEqual(rssFormatted("Mon Feb 05 10:00:00 2024"), "05 Feb 2024 10:00:00 +0000")
        XCTAssertEqual(RSSDate.read("Mon, 05 Feb 2024 10:00:00"), .fallback)
        XCTAssertEqual(RSSDate.read("Mon, 05 Feb 2024 10:00:00 +02:00"), .invalid)
        XCTAssertEqual(RSSDate.read("Mon, 05 February 2024 10:00:00 GMT"), .fallback)
        XCTAssertEqual(RSSDate.read("05 Feb 2024 10:00:00 -0500 (EST)"), .fallback)
        for text in ["Mon, 05 Feb 2024 10:00:00", "Mon, 05 Feb 2024 10:00:00 +02:00", "Mon, 05 February 2024 10:00:00 GMT",
                     "05 Feb 2024 10:00:00 -0500 (EST)"] {
            XCTAssertNil(FeedDate.rss(text), text)
        }
    }

    // MARK: - Spec §6.6 details

    func testRSSYearsAndSeparators() {
        XCTAssertEqual(rssFormatted("05 Feb 99 10:00:00 GMT"), "05 Feb 1999 10:00:00 +0000")
        XCTAssertEqual(rssFormatted("05 Feb 49 10:00:00 GMT"), "05 Feb 2049 10:00:00 +0000")
        XCTAssertEqual(rssFormatted("05 Feb 50 10:00:00 GMT"), "05 Feb 1950 10:00:00 +0000")
        XCTAssertEqual(rssFormatted("05 Feb 124 10:00:00 GMT"), "05 Feb 2024 10:00:00 +0000")
        XCTAssertEqual(rssFormatted("5-Feb-2024 10:00:00 GMT"), "05 Feb 2024 10:00:00 +0000")
        XCTAssertEqual(rssFormatted("Mon,05   Feb\t2024  10:00:00   GMT"), "05 Feb 2024 10:00:00 +0000")
        XCTAssertEqual(rssFormatted("  \n Mon, 05 Feb 2024 10:00:00 GMT \t"), "05 Feb 2024 10:00:00 +0000")
        XCTAssertEqual(rssFormatted("Xyz, 05 Feb 2024 10:00:00 GMT"), "05 Feb 2024 10:00:00 +0000", "weekday not checked")
        XCTAssertEqual(RSSDate.read("05-Feb 2024 10:00:00 GMT"), .fallback, "separators must agree")
        XCTAssertEqual(RSSDate.read("05 feb 2024 10:00:00 GMT"), .fallback, "month names are case-sensitive")
        XCTAssertEqual(RSSDate.read("Mon 05 Feb 2024 10:00:00 GMT"), .fallback, "a weekday needs its comma")
        XCTAssertEqual(RSSDate.read("MON, 05 Feb 2024 10:00:00 GMT"), .fallback)
        XCTAssertEqual(RSSDate.read("105 Feb 2024 10:00:00 GMT"), .fallback)
        XCTAssertEqual(RSSDate.read("05 Feb 20245 10:00:00 GMT"), .fallback)
        XCTAssertEqual(RSSDate.read("05 Feb 2024 1:00:00 GMT"), .fallback)
        XCTAssertEqual(RSSDate.read("05 Feb 0000 10:00:00 GMT"), .fallback, "there is no year 0")
        XCTAssertEqual(RSSDate.read("31 Feb 2024 10:00:00 GMT"), .fallback)
        XCTAssertEqual(rssFormatted("29 Feb 2024 10:00:00 GMT"), "29 Feb 2024 10:00:00 +0000")
        XCTAssertEqual(RSSDate.read("29 Feb 2023 10:00:00 GMT"), .fallback)
        XCTAssertEqual(RSSDate.read(""), .fallback)
        XCTAssertEqual(RSSDate.read("   "), .fallback)
        XCTAssertEqual(RSSDate.read("yesterday"), .fallback)
        XCTAssertEqual(RSSDate.read("2024-02-05T10:00:00Z"), .fallback)
        XCTAssertEqual(RSSDate.read("05\u{A0}Feb 2024 10:00:00 GMT"), .fallback, "\\s is ASCII white space only")
        XCTAssertEqual(RSSDate.read("０5 Feb 2024 10:00:00 GMT"), .fallback, "\\d is ASCII digits only")
    }

    func testRSSZones() {
        let zones: [(String, String)] = [
            ("GMT", "10:00"), ("UT", "10:00"), ("EDT", "14:00"), ("EST", "15:00"), ("CDT", "15:00"), ("CST", "16:00"),
            ("MDT", "16:00"), ("MST", "17:00"), ("PDT", "17:00"), ("PST", "18:00"), ("Z", "10:00"), ("A", "10:00"),
            ("J", "10:00"), ("z", "10:00"), ("UTC", "10:00"), ("CET", "10:00"), ("gmt", "10:00"), ("est", "10:00"),
            ("+0000", "10:00"), ("-0000", "10:00"), ("+0530", "04:30"), ("-1000", "20:00"), ("+2359", "10:01"),
        ]
        for (zone, time) in zones {
            let expected = (zone == "+2359" ? "04 Feb 2024 " : "05 Feb 2024 ") + time + ":00 +0000"
            XCTAssertEqual(rssFormatted("05 Feb 2024 10:00:00 \(zone)"), expected, zone)
        }
        for zone in ["+02:00", "+2", "+020", "+0260", "GMT+1", "E5T", "Zürich", "+02000"] {
            XCTAssertEqual(RSSDate.read("05 Feb 2024 10:00:00 \(zone)"), .invalid, zone)
        }
        XCTAssertEqual(RSSDate.read("31 Feb 2024 10:00:00 +0260"), .invalid, "the zone is read before the day")
    }

    func testRSSTimesAndLeapSeconds() {
        XCTAssertEqual(rssFormatted("31 Dec 2016 23:59:60 GMT"), "31 Dec 2016 23:59:59 +0000")
        XCTAssertEqual(rssFormatted("01 Jan 2017 01:59:60 +0200"), "31 Dec 2016 23:59:59 +0000")
        XCTAssertEqual(RSSDate.read("05 Feb 2024 10:00:60 GMT"), .fallback)
        // Qt keeps a valid day whose time is impossible, at midnight.
        XCTAssertEqual(rssFormatted("05 Feb 2024 25:00:00 GMT"), "05 Feb 2024 00:00:00 +0000")
        XCTAssertEqual(rssFormatted("05 Feb 2024 10:75 +0100"), "04 Feb 2024 23:00:00 +0000")
        XCTAssertEqual(rssFormatted("Mon Feb 05 10:00:61 2024"), "05 Feb 2024 00:00:00 +0000")
        XCTAssertEqual(RSSDate.read("Mon Feb 05 10:00 2024"), .fallback)
        XCTAssertEqual(RSSDate.read("Mon Feb 5 10:00:00 2024"), .fallback)
        XCTAssertEqual(RSSDate.read("Mon February 05 10:00:00 2024"), .fallback)
        XCTAssertEqual(RSSDate.read("Mon Feb 05 10:00:00 2024 GMT"), .fallback)
    }

    // MARK: - Atom

    func testAtomDates() throws {
        let z = try XCTUnwrap(FeedDate.atom("2024-02-05T10:00:00Z"))
        XCTAssertEqual(z.date, utc(2024, 2, 5, 10))
        XCTAssertEqual(z.offset, 0)
        XCTAssertEqual(z.formatted, "05 Feb 2024 10:00:00 +0000")

        let plus = try XCTUnwrap(FeedDate.atom("2024-02-05T12:00:00+02:00"))
        XCTAssertEqual(plus.date, utc(2024, 2, 5, 10))
        XCTAssertEqual(plus.offset, 7200)
        XCTAssertEqual(plus.formatted, "05 Feb 2024 12:00:00 +0200")

        let minus = try XCTUnwrap(FeedDate.atom("2024-02-05T04:30:15.250-05:30"))
        XCTAssertEqual(minus.date.timeIntervalSince1970, utc(2024, 2, 5, 10, 0, 15).timeIntervalSince1970 + 0.25,
                       accuracy: 0.0001)
        XCTAssertEqual(minus.formatted, "05 Feb 2024 04:30:15 -0530")

        XCTAssertEqual(FeedDate.atom("2024-02-05t10:00z")?.date, utc(2024, 2, 5, 10))
        XCTAssertEqual(FeedDate.atom("2024-02-05 10:00:00+0100")?.offset, 3600)
        XCTAssertEqual(FeedDate.atom("2024-02-05T10:00:00+01")?.offset, 3600)
        XCTAssertEqual(FeedDate.atom("2024-02-05T24:00:00Z")?.date, utc(2024, 2, 6))
        XCTAssertEqual(FeedDate.atom("2024-02-05T10:00:00,5Z")?.date.timeIntervalSince1970,
                       utc(2024, 2, 5, 10).timeIntervalSince1970 + 0.5)

        for bad in ["", "garbage", "2024-02-30T10:00:00Z", "2024-13-01T10:00:00Z", "0000-01-01T00:00:00Z",
                    "2024-02-05T25:00:00Z", "2024-02-05T10:60:00Z", "2024-02-05T10Z", "2024-02-05X10:00:00Z",
                    "2024-02-05T10:00:00+25:00", "2024-02-05T10:00:00+01:60", "2024-2-5T10:00:00Z",
                    "2024-02-05T10:00:00.Z", "2024-02-05T10:00:00.1.2Z", " 2024-02-05T10:00:00Z", "2024-02-05T"] {
            XCTAssertNil(FeedDate.atom(bad), bad)
        }
    }

    func testAtomDatesWithoutZoneUseTheMachinesOffset() throws {
        let noZone = try XCTUnwrap(FeedDate.atom("2024-07-05T10:00:00"))
        let wall = FeedCalendar.seconds(year: 2024, month: 7, day: 5, hour: 10, minute: 0, second: 0)
        XCTAssertEqual(noZone.offset, TimeZone.current.secondsFromGMT(for: noZone.date))
        XCTAssertEqual(noZone.date.timeIntervalSince1970, TimeInterval(wall - noZone.offset))
        XCTAssertTrue(noZone.formatted.hasPrefix("05 Jul 2024 10:00:00 "), noZone.formatted)

        let dayOnly = try XCTUnwrap(FeedDate.atom("2024-07-05"))
        XCTAssertTrue(dayOnly.formatted.hasPrefix("05 Jul 2024 00:00:00 "), dayOnly.formatted)
    }

    // MARK: - Stored form

    func testFormattedIsQtsRFC2822Form() {
        XCTAssertEqual(FeedDate(date: Date(timeIntervalSince1970: 0)).formatted, "01 Jan 1970 00:00:00 +0000")
        XCTAssertEqual(FeedDate(date: utc(2024, 2, 5, 10), offset: -18_000).formatted, "05 Feb 2024 05:00:00 -0500")
        XCTAssertEqual(FeedDate(date: utc(2024, 2, 5, 10), offset: 20_700).formatted, "05 Feb 2024 15:45:00 +0545")
        XCTAssertEqual(FeedDate(date: utc(1969, 12, 31, 23, 59, 59)).formatted, "31 Dec 1969 23:59:59 +0000")
        XCTAssertEqual(FeedDate(date: utc(999, 3, 1, 1, 2, 3)).formatted, "01 Mar 0999 01:02:03 +0000")
        XCTAssertEqual(FeedDate(date: utc(2024, 2, 5, 10).addingTimeInterval(0.999)).formatted,
                       "05 Feb 2024 10:00:00 +0000", "fractions are dropped")
        XCTAssertEqual(FeedDate(date: utc(2000, 12, 31, 23, 30), offset: 3600).formatted, "01 Jan 2001 00:30:00 +0100")
    }

    func testStoredFormRoundTrips() throws {
        var generator = FeedTestRandom(seed: 7)
        for _ in 0..<2000 {
            let seconds = Int(generator.next() % 8_000_000_000) - 2_000_000_000
            let offset = (Int(generator.next() % 97) - 48) * 15 * 60
            let date = FeedDate(date: Date(timeIntervalSince1970: TimeInterval(seconds)), offset: offset)
            let read = try XCTUnwrap(FeedDate(stored: date.formatted), date.formatted)
            XCTAssertEqual(read.date, date.date, date.formatted)
            XCTAssertEqual(read.offset, date.offset, date.formatted)
            XCTAssertEqual(read.formatted, date.formatted)
        }
    }

    func testStoredFormVariants() throws {
        let ten = utc(2024, 2, 5, 10)
        let variants: [(String, Date, Int)] = [
            ("05 Feb 2024 10:00:00 +0000", ten, 0),
            ("Mon, 05 Feb 2024 10:00:00 +0000", ten, 0),
            ("Mon,05 Feb 2024 10:00:00 +0000", ten, 0),
            ("05 Feb 2024 11:00 +0100", ten, 3600),
            ("5 Feb 2024 10:00:00", ten, 0),
            ("05 Feb 2024 10:00:00 GMT", ten, 0),
            ("05 Feb 2024", utc(2024, 2, 5), 0),
            ("Mon Feb 05 10:00:00 2024", ten, 0),
            ("Mon Feb 05 05:00:00 2024 -0500", ten, -18_000),
            ("  05\tFeb 2024 10:00:00 +0000 ", ten, 0),
        ]
        for (text, date, offset) in variants {
            let read = try XCTUnwrap(FeedDate(stored: text), text)
            XCTAssertEqual(read.date, date, text)
            XCTAssertEqual(read.offset, offset, text)
        }
        for bad in ["", "05 Foo 2024 10:00:00 +0000", "32 Jan 2024 10:00:00 +0000", "05 Feb 2024 10:00:00 +02:00",
                    "05 Feb 24 10:00:00 +0000", "05 Feb 2024 24:00:00 +0000", "05 Feb 2024 10:00:00 +0000 extra",
                    "05 feb 2024 10:00:00 +0000", "2024-02-05T10:00:00Z", "05 Feb 2024 10:00:00 +0060", "Mon Feb 05"] {
            XCTAssertNil(FeedDate(stored: bad), bad)
        }
    }

    func testComparisonIsByInstantOnly() {
        let a = FeedDate(date: utc(2024, 2, 5, 10), offset: 0)
        let b = FeedDate(date: utc(2024, 2, 5, 10), offset: 3600)
        let c = FeedDate(date: utc(2024, 2, 5, 11), offset: -3600)
        XCTAssertEqual(a, b)
        XCTAssertEqual(Set([a, b]).count, 1)
        XCTAssertLessThan(a, c)
        XCTAssertFalse(a < b || b < a)
    }
}

/// A small deterministic generator, so failures can be replayed.
struct FeedTestRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
