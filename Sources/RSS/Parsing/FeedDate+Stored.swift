import Foundation

extension FeedDate {
    /// qBittorrent's stored/JSON form: "05 Feb 2024 10:00:00 +0000" (dd MMM yyyy HH:mm:ss ±hhmm, C locale, no
    /// weekday), in `offset`.
    public var formatted: String {
        let instant = date.timeIntervalSince1970
        guard instant.isFinite, abs(instant) < 1e13, offset.magnitude < 1_000_000_000 else { return "" }
        let wall = Int(instant.rounded(.down)) + offset
        let dayCount = wall >= 0 ? wall / 86_400 : -((86_399 - wall) / 86_400)
        let secondOfDay = wall - dayCount * 86_400
        let (year, month, day) = FeedCalendar.civil(days: dayCount)
        let sign = offset < 0 ? "-" : "+"
        let zone = abs(offset) / 60
        return "\(pad(day, 2)) \(FeedCalendar.monthNames[month - 1]) \(year < 0 ? "-" + pad(-year, 4) : pad(year, 4)) "
            + "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)) "
            + "\(sign)\(pad(zone / 60, 2))\(pad(zone % 60, 2))"
    }

    /// Reads `formatted`'s form, with an optional "Ddd, " prefix, optional seconds, optional zone (none = UTC), and
    /// "Ddd MMM dd hh:mm:ss yyyy [±hhmm]"; nil otherwise (used for rule lastMatch and stored article dates).
    ///
    /// Like Qt's RFC 2822 reading, the time may be left out (midnight) and words are separated by spaces or tabs.
    /// "GMT", "UT", "UTC" and "Z" are also read as +0000.
    public init?(stored: String) {
        var words = stored.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard var first = words.first else { return nil }
        // "Mon,05 Feb …": the weekday's comma separates too.
        if let comma = first.firstIndex(of: ","), comma != first.index(before: first.endIndex),
           first[..<comma].allSatisfy(\.isASCIILetter) {
            words[0] = first[first.index(after: comma)...]
            words.insert(first[...comma], at: 0)
            first = words[0]
        }
        let day: Substring, month: Substring, year: Substring
        var time: Substring?
        if first.last == ",", first.dropLast().allSatisfy(\.isASCIILetter), first.count > 1 {
            words.removeFirst()
        }
        if words.first?.first?.isASCIIDigit == true {
            // dd MMM yyyy [hh:mm[:ss]] [zone]
            guard (3...5).contains(words.count) else { return nil }
            (day, month, year) = (words[0], words[1], words[2])
            words.removeFirst(3)
            if let next = words.first, next.contains(":") { time = next; words.removeFirst() }
        } else {
            // Ddd MMM dd [hh:mm:ss] yyyy [zone]
            guard words.count >= 4, words[0].allSatisfy(\.isASCIILetter) else { return nil }
            (month, day) = (words[1], words[2])
            words.removeFirst(3)
            if let next = words.first, next.contains(":") {
                guard next.split(separator: ":", omittingEmptySubsequences: false).count == 3 else { return nil }
                time = next
                words.removeFirst()
            }
            guard let y = words.first else { return nil }
            year = y
            words.removeFirst()
        }
        guard words.count <= 1,
              day.count <= 2, let d = Int.asciiDigits(day),
              let m = FeedCalendar.month(named: month),
              year.count == 4, let y = Int.asciiDigits(year),
              FeedCalendar.isValidDate(year: y, month: m, day: d) else { return nil }
        var clock = (hour: 0, minute: 0, second: 0)
        if let time {
            let parts = time.split(separator: ":", omittingEmptySubsequences: false)
            guard (2...3).contains(parts.count), parts.allSatisfy({ $0.count == 2 }),
                  let h = Int.asciiDigits(parts[0]), let mi = Int.asciiDigits(parts[1]) else { return nil }
            let s = parts.count == 3 ? Int.asciiDigits(parts[2]) : 0
            guard let s, FeedCalendar.isValidTime(hour: h, minute: mi, second: s) else { return nil }
            clock = (h, mi, s)
        }
        var zoneOffset = 0
        if let zone = words.first {
            guard let z = Self.storedZone(zone) else { return nil }
            zoneOffset = z
        }
        let wall = FeedCalendar.seconds(year: y, month: m, day: d, hour: clock.hour, minute: clock.minute,
                                        second: clock.second)
        self.init(date: Date(timeIntervalSince1970: TimeInterval(wall - zoneOffset)), offset: zoneOffset)
    }

    /// ±hhmm (minutes below 60), or a UTC name.
    private static func storedZone(_ zone: Substring) -> Int? {
        if ["GMT", "UT", "UTC", "Z"].contains(zone) { return 0 }
        guard zone.count == 5, let sign = zone.first, sign == "+" || sign == "-",
              let hours = Int.asciiDigits(zone.dropFirst().prefix(2)),
              let minutes = Int.asciiDigits(zone.suffix(2)), minutes < 60 else { return nil }
        let seconds = hours * 3600 + minutes * 60
        return sign == "-" ? -seconds : seconds
    }
}

private func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}
