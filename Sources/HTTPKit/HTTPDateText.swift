#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// An HTTP `Date` value (IMF-fixdate, as Hummingbird writes it), formatted once a second.
package enum HTTPDateText {
    private static let cache = Mutex<(second: Int, text: String)>((-1, ""))
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    package static func now() -> String {
        var clock = time(nil)
        let second = Int(clock)
        if let text = cache.withLock({ $0.second == second ? $0.text : nil }) { return text }
        var t = tm()
        gmtime_r(&clock, &t)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let text = "\(days[Int(t.tm_wday)]), \(two(t.tm_mday)) \(months[Int(t.tm_mon)]) \(t.tm_year + 1900) "
            + "\(two(t.tm_hour)):\(two(t.tm_min)):\(two(t.tm_sec)) GMT"
        cache.withLock { $0 = (second, text) }
        return text
    }
}
