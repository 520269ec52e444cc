import CCurl
import Foundation
import SystemKit

/// qBittorrent's e-mail notifications (Net::Smtp): the message as qBittorrent writes it, sent through libcurl.
public enum MailSender {
    /// `mail_notification_smtp` (`host[:port]`), `mail_notification_ssl_enabled`, and the login when asked for.
    public struct Server: Sendable, Equatable {
        public var address: String
        public var ssl: Bool
        public var username: String?
        public var password: String?

        public init(address: String, ssl: Bool, username: String? = nil, password: String? = nil) {
            self.address = address
            self.ssl = ssl
            self.username = username
            self.password = password
        }

        /// qBittorrent's default ports: 465 with SSL, 25 without (STARTTLS when the server offers it).
        var url: String {
            let parts = address.split(separator: ":", maxSplits: 1)
            let host = parts.first.map(String.init) ?? ""
            let port = parts.count == 2 ? Int(parts[1]) : nil
            return (ssl ? "smtps://" : "smtp://") + host + ":" + String(port ?? (ssl ? 465 : 25))
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Headers (Date, From "qBittorrent <sender>", Subject, To, MIME), a blank line, the body in base64.
    public static func compose(from: String, to: String, subject: String, body: String, date: Date = Date()) -> String {
        var message = "Date: " + rfc2822(date) + "\r\n"
        message += header("From", "qBittorrent <\(from)>")
        message += header("Subject", subject)
        message += header("To", to)
        message += "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: base64\r\n\r\n"
        let encoded = Data(body.replacingOccurrences(of: "\n", with: "\r\n").utf8).base64EncodedString()
        var index = encoded.startIndex
        while index < encoded.endIndex {
            let end = encoded.index(index, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex
            message += encoded[index..<end] + "\r\n"
            index = end
        }
        return message
    }

    /// Latin-1 text as it is, anything else as a UTF-8 base64 encoded word (qBittorrent's `encodeMimeHeader`).
    static func header(_ name: String, _ value: String) -> String {
        let clean = value.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        if !clean.contains("=?"), clean.unicodeScalars.allSatisfy({ $0.value < 256 }) { return "\(name): \(clean)\r\n" }
        return "\(name): =?utf-8?b?\(Data(clean.utf8).base64EncodedString())?=\r\n"
    }

    static func rfc2822(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        return f.string(from: date)
    }

    /// Sends `message` on a Dispatch thread (never on the concurrency pool).
    public static func send(_ message: String, from: String, to: String, server: Server, timeout: Int = 60) async throws {
        try await offPool { try perform(message, from: from, to: to, server: server, timeout: timeout) }
    }

    static func perform(_ message: String, from: String, to: String, server: Server, timeout: Int) throws {
        // The addresses go into SMTP commands as they are: nothing that could end a command or the address.
        for address in [from, to] where address.isEmpty
            || address.unicodeScalars.contains(where: { $0.value < 0x21 || $0 == "<" || $0 == ">" || $0.value == 0x7f }) {
            throw Failure(description: "not an e-mail address: \(address.debugDescription)")
        }
        var error = [CChar](repeating: 0, count: 512)
        let bytes = Array(message.utf8)
        let result: Int32 = server.url.withCString { url in
            "<\(from)>".withCString { fromAddress in
                "<\(to)>".withCString { toAddress in
                    HTTPFetch.withOptionalCString(server.username) { user in
                        HTTPFetch.withOptionalCString(server.password) { password in
                            bytes.withUnsafeBufferPointer { body in
                                body.withMemoryRebound(to: CChar.self) { text in
                                    var request = qbt_mail_request(
                                        url: url, username: user, password: password, from: fromAddress, to: toAddress,
                                        message: text.baseAddress, message_length: text.count, timeout_seconds: timeout)
                                    return error.withUnsafeMutableBufferPointer { e in qbt_send_mail(&request, e.baseAddress, e.count) }
                                }
                            }
                        }
                    }
                }
            }
        }
        guard result == 0 else {
            throw Failure(description: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }
}
