import Foundation

/// A date as a feed gave it: an instant and the UTC offset it is printed with.
///
/// Equality, hashing and order look at the instant only (as Qt's QDateTime does): the same moment printed with two
/// offsets is one date.
public struct FeedDate: Sendable, Hashable, Comparable {
    public var date: Date
    /// Seconds east of UTC.
    public var offset: Int

    public init(date: Date, offset: Int = 0) {
        self.date = date
        self.offset = offset
    }

    public static func == (a: FeedDate, b: FeedDate) -> Bool { a.date == b.date }
    public static func < (a: FeedDate, b: FeedDate) -> Bool { a.date < b.date }
    public func hash(into hasher: inout Hasher) { hasher.combine(date) }

    /// The parse-time fallback: `now` with the machine's offset.
    static func local(_ now: Date) -> FeedDate {
        FeedDate(date: now, offset: FeedCalendar.localOffset(at: now))
    }
}
