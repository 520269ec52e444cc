import Foundation

extension FeedDate {
    /// An RSS <pubDate> by spec §6.6 (result in UTC, offset 0); nil when it does not parse or is invalid.
    public static func rss(_ text: String) -> FeedDate? {
        if case .date(let date) = RSSDate.read(text) { return date }
        return nil
    }
}

/// qBittorrent's reading of RSS dates (RFC 822/2822 and the obsolete forms, after KDE's parser).
enum RSSDate: Equatable {
    case date(FeedDate)
    /// The text was unreadable: the item takes the parse's start time.
    case fallback
    /// A zone that cannot be read (e.g. "+02:00"), or an offset with minutes above 59: the article is left
    /// without a date, and the merge gives it one.
    case invalid

    static func read(_ text: String) -> RSSDate {
        let scalars = Array(text.feedTrimmed.unicodeScalars)
        if scalars.isEmpty { return .fallback }
        var fields: Fields
        if let long = matchLongForm(scalars) {
            fields = long
        } else if let asctime = matchAsctime(scalars) {
            fields = asctime
        } else {
            return .fallback
        }
        if fields.separatorsDiffer { return .fallback }
        // Both forms only let ASCII digits through, so these conversions cannot fail.
        guard let day = Int.asciiDigits(fields.day), var year = Int.asciiDigits(fields.year),
              let hour = Int.asciiDigits(fields.hour), let minute = Int.asciiDigits(fields.minute) else { return .fallback }
        var second = 0
        if !fields.second.isEmpty {
            guard let s = Int.asciiDigits(fields.second) else { return .fallback }
            second = s
        }
        let leapSecond = second == 60
        if leapSecond { second = 59 }
        let month = FeedCalendar.month(named: Substring(fields.month))
        if fields.year.count < 4 { year += (fields.year.count == 2 && year < 50) ? 2000 : 1900 }

        var offset = 0
        if let zone = fields.zone {
            switch readZone(zone) {
            case .some(let value): offset = value
            case .none: return .invalid
            }
        }
        guard let month, FeedCalendar.isValidDate(year: year, month: month, day: day) else { return .fallback }
        // Qt keeps a valid day with an impossible time, at midnight.
        let validTime = FeedCalendar.isValidTime(hour: hour, minute: minute, second: second)
        let wall = FeedCalendar.seconds(year: year, month: month, day: day, hour: validTime ? hour : 0,
                                        minute: validTime ? minute : 0, second: validTime ? second : 0)
        if leapSecond, (hour * 3600 + minute * 60 + 60 - offset + 86_400 * 5) % 86_400 != 0 { return .fallback }
        return .date(FeedDate(date: Date(timeIntervalSince1970: TimeInterval(wall - offset)), offset: 0))
    }

    /// The zone's offset in seconds; nil when the date is invalid.
    private static func readZone(_ zone: String) -> Int? {
        let scalars = Array(zone.unicodeScalars)
        if scalars.count == 5, scalars[0] == "+" || scalars[0] == "-", scalars.dropFirst().allSatisfy(isDigit) {
            let digits = scalars.dropFirst().map { Int($0.value - 48) }
            let minutes = digits[2] * 10 + digits[3]
            if minutes > 59 { return nil }
            let seconds = (digits[0] * 10 + digits[1]) * 3600 + minutes * 60
            return scalars[0] == "-" ? -seconds : seconds
        }
        switch zone {
        case "UT", "GMT": return 0
        case "EDT": return -4 * 3600
        case "EST", "CDT": return -5 * 3600
        case "CST", "MDT": return -6 * 3600
        case "MST", "PDT": return -7 * 3600
        case "PST": return -8 * 3600
        default:
            // Military letters and any other alphabetic name count as +0000 (RFC 2822's "-0000").
            return scalars.allSatisfy(isLetter) ? 0 : nil
        }
    }

    // MARK: - The two forms, matched by hand exactly as the regular expressions would

    private struct Fields {
        var day = "", month = "", year = "", hour = "", minute = "", second = ""
        var zone: String?
        var separatorsDiffer = false
    }

    private static func isDigit(_ s: Unicode.Scalar) -> Bool { s.value >= 48 && s.value <= 57 }
    private static func isUpper(_ s: Unicode.Scalar) -> Bool { s.value >= 65 && s.value <= 90 }
    private static func isLower(_ s: Unicode.Scalar) -> Bool { s.value >= 97 && s.value <= 122 }
    private static func isLetter(_ s: Unicode.Scalar) -> Bool { isUpper(s) || isLower(s) }
    /// PCRE's \s without Unicode properties: space, \t, \n, \v, \f, \r.
    private static func isSpace(_ s: Unicode.Scalar) -> Bool { s == " " || (s.value >= 9 && s.value <= 13) }

    /// A cursor over scalars with the few moves the two patterns need.
    private struct Cursor {
        let s: [Unicode.Scalar]
        var i = 0
        var atEnd: Bool { i == s.count }

        mutating func take(while predicate: (Unicode.Scalar) -> Bool, max: Int = .max) -> String {
            let start = i
            while i < s.count, i - start < max, predicate(s[i]) { i += 1 }
            return String(String.UnicodeScalarView(s[start..<i]))
        }

        mutating func skip(_ scalar: Unicode.Scalar) -> Bool {
            guard i < s.count, s[i] == scalar else { return false }
            i += 1
            return true
        }

        /// Two ASCII digits.
        mutating func twoDigits() -> String? {
            guard i + 1 < s.count, RSSDate.isDigit(s[i]), RSSDate.isDigit(s[i + 1]) else { return nil }
            i += 2
            return String(String.UnicodeScalarView(s[i - 2..<i]))
        }

        /// `\s+`
        mutating func spaces() -> Bool { !take(while: RSSDate.isSpace).isEmpty }

        /// `(\s+|-)`: true for white space, false for a hyphen, nil for neither.
        mutating func separator() -> Bool? {
            if spaces() { return true }
            return skip("-") ? false : nil
        }
    }

    /// `^(?:([A-Z][a-z]+),\s*)?(\d{1,2})(\s+|-)([^-\s]+)(\s+|-)(\d{2,4})\s+(\d\d):(\d\d)(?::(\d\d))?\s+(\S+)$`
    private static func matchLongForm(_ s: [Unicode.Scalar]) -> Fields? {
        var c = Cursor(s: s)
        var f = Fields()
        // The optional weekday: a capital, lower-case letters, then a comma right after them.
        if let first = s.first, isUpper(first) {
            c.i = 1
            guard !c.take(while: isLower).isEmpty, c.skip(",") else { return nil }
            _ = c.take(while: isSpace)
        }
        f.day = c.take(while: isDigit, max: 2)
        guard !f.day.isEmpty, let first = c.separator() else { return nil }
        f.month = c.take(while: { $0 != "-" && !isSpace($0) })
        guard !f.month.isEmpty, let second = c.separator() else { return nil }
        f.separatorsDiffer = first != second
        f.year = c.take(while: isDigit, max: 4)
        guard f.year.count >= 2, c.spaces(), let hour = c.twoDigits(), c.skip(":"),
              let minute = c.twoDigits() else { return nil }
        (f.hour, f.minute) = (hour, minute)
        if c.i < s.count, s[c.i] == ":" {
            c.i += 1
            guard let second = c.twoDigits() else { return nil }
            f.second = second
        }
        guard c.spaces() else { return nil }
        let zone = c.take(while: { !isSpace($0) })
        guard !zone.isEmpty, c.atEnd else { return nil }
        f.zone = zone
        return f
    }

    /// `^([A-Z][a-z]+)\s+(\S+)\s+(\d\d)\s+(\d\d):(\d\d):(\d\d)\s+(\d\d\d\d)$`, read as UTC.
    private static func matchAsctime(_ s: [Unicode.Scalar]) -> Fields? {
        var c = Cursor(s: s)
        var f = Fields()
        guard let first = s.first, isUpper(first) else { return nil }
        c.i = 1
        guard !c.take(while: isLower).isEmpty, c.spaces() else { return nil }
        f.month = c.take(while: { !isSpace($0) })
        guard !f.month.isEmpty, c.spaces(), let day = c.twoDigits(), c.spaces(),
              let hour = c.twoDigits(), c.skip(":"), let minute = c.twoDigits(), c.skip(":"),
              let second = c.twoDigits(), c.spaces() else { return nil }
        (f.day, f.hour, f.minute, f.second) = (day, hour, minute, second)
        f.year = c.take(while: isDigit, max: 4)
        guard f.year.count == 4, c.atEnd else { return nil }
        return f
    }
}
