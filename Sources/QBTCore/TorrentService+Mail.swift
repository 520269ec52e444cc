import Foundation
import HTTPFetch
import TorrentEngine

/// qBittorrent's e-mail notification: one message per finished torrent, and `app/sendTestEmail`, sent in the
/// background; a failure is a warning in the log ("Email Notification Error: …").
extension TorrentService {
    func sendCompletionMail(_ id: TorrentID) async {
        guard settings[\.mailNotificationEnabled], let record = torrents[id]?.record else { return }
        let status = try? engine.status(id)
        let body = "Torrent name: \(record.name)\n"
            + "Torrent size: \(Self.friendlyUnit(status?.totalWanted ?? 0))\n"
            + "Save path: \(record.savePath)\n\n"
            + "The torrent was downloaded in \(Self.friendlyDuration(status?.activeDuration ?? 0)).\n\n\n"
            + "Thank you for using qBittorrent.\n"
        await sendMail(subject: "Torrent \"\(record.name)\" has finished downloading", body: body)
    }

    /// `app/sendTestEmail`: only while notifications are on, as in qBittorrent.
    func sendTestMail() async {
        guard settings[\.mailNotificationEnabled] else { return }
        await sendMail(subject: "Test email", body: "This is a test email.\nThank you for using qBittorrent.\n")
    }

    func sendMail(subject: String, body: String) async {
        let from = settings[\.mailNotificationSender]
        let to = settings[\.mailNotificationEmail]
        let auth = settings[\.mailNotificationAuthEnabled]
        let server = MailSender.Server(
            address: settings[\.mailNotificationSMTP], ssl: settings[\.mailNotificationSSLEnabled],
            username: auth ? settings[\.mailNotificationUsername] : nil,
            password: auth ? settings[\.mailNotificationPassword] : nil)
        let message = MailSender.compose(from: from, to: to, subject: subject, body: body)
        let log = self.log
        Task {
            do { try await MailSender.send(message, from: from, to: to, server: server) } catch {
                log.add("Email Notification Error: \(error)", kind: .warning)
            }
        }
    }

    /// qBittorrent's `friendlyUnit`: 1024-based units, 0 decimals for bytes, 1 for KiB and MiB, 2 for GiB, 3 above,
    /// a no-break space before the unit.
    static func friendlyUnit(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
        var value = Double(max(0, bytes)), unit = 0
        while value >= 1024 && unit < units.count - 1 { value /= 1024; unit += 1 }
        let precision = [0, 1, 1, 2][min(unit, 3)] + (unit > 3 ? 1 : 0)
        return String(format: "%.\(precision)f", value) + "\u{00A0}" + units[unit]
    }

    /// qBittorrent's `userFriendlyDuration`: `0`, `42s`, `5m`, `3h 5m`, `2d 10h`, `1y 3d`.
    static func friendlyDuration(_ seconds: Int64) -> String {
        if seconds < 0 { return "∞" }
        if seconds == 0 { return "0" }
        if seconds < 60 { return "\(seconds)s" }
        let minutes = seconds / 60
        if minutes < 60 { return "\(minutes)m" }
        let hours = minutes / 60
        if hours < 24 { return "\(hours)h \(minutes - hours * 60)m" }
        let days = hours / 24
        if days < 365 { return "\(days)d \(hours - days * 24)h" }
        let years = days / 365
        return "\(years)y \(days - years * 365)d"
    }
}
