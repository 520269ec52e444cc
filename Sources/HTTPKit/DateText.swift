import Foundation

/// Dates as the wire writes them.
package enum DateText {
    /// RFC 7231 (`Expires`, `Upload-Expires`): "Mon, 23 Nov 2026 05:30:00 GMT".
    package static func http(_ date: Date) -> String { format(date, "EEE, dd MMM yyyy HH:mm:ss 'GMT'", gmt: true) }

    /// A cookie's `expires` as Qt's `QNetworkCookie` writes it: "Sun, 06-Dec-2026 01:42:13 GMT".
    package static func cookie(_ date: Date) -> String { format(date, "EEE, dd-MMM-yyyy HH:mm:ss 'GMT'", gmt: true) }

    /// Qt's `QDateTime::toString()`: "Mon Nov 23 05:30:00 2026", local time.
    package static func qt(_ date: Date) -> String { format(date, "EEE MMM d HH:mm:ss yyyy", gmt: false) }

    private static func format(_ date: Date, _ pattern: String, gmt: Bool) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        if gmt { f.timeZone = TimeZone(identifier: "GMT") }
        f.dateFormat = pattern
        return f.string(from: date)
    }
}
