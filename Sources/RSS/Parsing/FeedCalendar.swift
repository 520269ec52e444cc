import Foundation

/// Proleptic Gregorian arithmetic in whole seconds, by hand: no Calendar, no DateFormatter, no locale.
enum FeedCalendar {
    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// 1...12 for an English three-letter month name, exact case; nil otherwise.
    static func month(named name: Substring) -> Int? {
        monthNames.firstIndex { $0 == name }.map { $0 + 1 }
    }

    static func isLeapYear(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Whether year/month/day names a real day. There is no year 0 (as in Qt's QDate).
    static func isValidDate(year: Int, month: Int, day: Int) -> Bool {
        year != 0 && abs(year) < 1_000_000 && (1...12).contains(month) && day >= 1 && day <= daysInMonth(month, year: year)
    }

    static func isValidTime(hour: Int, minute: Int, second: Int) -> Bool {
        (0..<24).contains(hour) && (0..<60).contains(minute) && (0..<60).contains(second)
    }

    /// Days from 1970-01-01 to the given day (negative before it).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The calendar day of a count of days from 1970-01-01.
    static func civil(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Seconds from the epoch of a wall-clock time read as UTC.
    static func seconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Int {
        days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// The machine's UTC offset, in seconds, for a wall-clock time given as if it were UTC.
    static func localOffset(forWallClock wall: Int) -> Int {
        let zone = TimeZone.current
        let guess = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(wall)))
        let second = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(wall - guess)))
        return second
    }

    /// The machine's UTC offset, in seconds, at an instant.
    static func localOffset(at date: Date) -> Int {
        TimeZone.current.secondsFromGMT(for: date)
    }
}
