import Foundation

/// The alternative-speed schedule (`PreferenceEntry.Applier.speedSchedule`), followed every tick.
extension ServerSettings {
    /// Whether the schedule says alternative limits apply at `date` (qBittorrent's `scheduler_days`:
    /// 0 every day, 1 weekdays, 2 weekends, 3…9 Monday…Sunday).
    public nonisolated func scheduleWantsAlternative(at date: Date, calendar: Calendar = .current) -> Bool? {
        let p = current
        guard p[\.schedulerEnabled] else { return nil }
        let parts = calendar.dateComponents([.weekday, .hour, .minute], from: date)
        let weekday = ((parts.weekday ?? 1) + 5) % 7  // Monday = 0 … Sunday = 6
        let day: Bool = switch p[\.schedulerDays] {
        case 0: true
        case 1: weekday < 5
        case 2: weekday >= 5
        case let d where (3...9).contains(d): weekday == d - 3
        default: true
        }
        guard day else { return false }
        let now = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        let from = p[\.scheduleFromHour] * 60 + p[\.scheduleFromMin]
        let to = p[\.scheduleToHour] * 60 + p[\.scheduleToMin]
        return from <= to ? (now >= from && now < to) : (now >= from || now < to)  // windows may cross midnight
    }
}
