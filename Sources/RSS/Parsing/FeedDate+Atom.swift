import Foundation

extension FeedDate {
    /// An Atom <updated> ISO 8601 date by spec §6.5 (keeps the offset; Z = 0; no zone = the machine's local offset);
    /// nil when invalid.
    ///
    /// Reads `YYYY-MM-DD[THH:mm[:ss[.fraction]]][Z|±HH[[:]mm]]` as Qt's ISODate does: "T" may be "t" or a space,
    /// a date alone is local midnight, "24:00" is the next day's midnight, the fraction is rounded to milliseconds.
    public static func atom(_ text: String) -> FeedDate? {
        let s = Array(text.unicodeScalars)
        guard s.count >= 10, let year = digits(s[0..<4]), s[4] == "-", let month = digits(s[5..<7]), s[7] == "-",
              let day = digits(s[8..<10]), FeedCalendar.isValidDate(year: year, month: month, day: day) else { return nil }
        let midnight = FeedCalendar.seconds(year: year, month: month, day: day, hour: 0, minute: 0, second: 0)
        if s.count == 10 {
            let offset = FeedCalendar.localOffset(forWallClock: midnight)
            return FeedDate(date: Date(timeIntervalSince1970: TimeInterval(midnight - offset)), offset: offset)
        }
        guard s[10] == "T" || s[10] == "t" || s[10] == " " else { return nil }
        var rest = s[11...]
        var zone: Int?
        if let last = rest.last, last == "Z" || last == "z" {
            zone = 0
            rest = rest.dropLast()
        } else if let sign = rest.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            guard let offset = zoneOffset(rest[sign...]) else { return nil }
            zone = offset
            rest = rest[..<sign]
        }
        guard let (seconds, milliseconds) = timeOfDay(rest) else { return nil }
        let wall = midnight + seconds
        let offset = zone ?? FeedCalendar.localOffset(forWallClock: wall)
        let instant = TimeInterval(wall - offset) + TimeInterval(milliseconds) / 1000
        return FeedDate(date: Date(timeIntervalSince1970: instant), offset: offset)
    }

    /// `HH:mm[:ss[(.|,)fraction]]` → seconds into the day (86400 for 24:00) and milliseconds.
    private static func timeOfDay(_ s: ArraySlice<Unicode.Scalar>) -> (Int, Int)? {
        let s = Array(s)
        guard s.count >= 5, let hour = digits(s[0..<2]), s[2] == ":", let minute = digits(s[3..<5]) else { return nil }
        var second = 0, milliseconds = 0
        if s.count > 5 {
            guard s[5] == ":", s.count >= 8, let sec = digits(s[6..<8]) else { return nil }
            second = sec
            if s.count > 8 {
                guard s[8] == "." || s[8] == ",", s.count > 9 else { return nil }
                let fraction = s[9...]
                guard fraction.count <= 18, let value = digits(fraction) else { return nil }
                var scale = 1
                for _ in 0..<fraction.count { scale *= 10 }
                milliseconds = Int((Double(value) * 1000 / Double(scale)).rounded())
            }
        }
        if hour == 24, minute == 0, second == 0, milliseconds == 0 { return (86_400, 0) }
        guard FeedCalendar.isValidTime(hour: hour, minute: minute, second: second) else { return nil }
        if milliseconds == 1000 { return (hour * 3600 + minute * 60 + second + 1, 0) }
        return (hour * 3600 + minute * 60 + second, milliseconds)
    }

    /// `±HH`, `±HHmm` or `±HH:mm` (hours to 23, minutes to 59) → seconds east of UTC.
    private static func zoneOffset(_ s: ArraySlice<Unicode.Scalar>) -> Int? {
        let s = Array(s)
        let body = s.dropFirst()
        let hours: Int?, minutes: Int?
        switch body.count {
        case 2: (hours, minutes) = (digits(body), 0)
        case 4: (hours, minutes) = (digits(body.prefix(2)), digits(body.suffix(2)))
        case 5 where body[body.startIndex + 2] == ":": (hours, minutes) = (digits(body.prefix(2)), digits(body.suffix(2)))
        default: return nil
        }
        guard let hours, let minutes, hours < 24, minutes < 60 else { return nil }
        let seconds = hours * 3600 + minutes * 60
        return s[0] == "-" ? -seconds : seconds
    }

    private static func digits<C: Collection>(_ scalars: C) -> Int? where C.Element == Unicode.Scalar {
        guard !scalars.isEmpty else { return nil }
        var value = 0
        for scalar in scalars {
            guard scalar.value >= 48, scalar.value <= 57 else { return nil }
            value = value &* 10 &+ Int(scalar.value - 48)
        }
        return value
    }
}
