import Foundation

/// `application/x-www-form-urlencoded`, strict: everything but unreserved characters is escaped (`+`, `&`, `=`, `|`).
enum FormEncoding {
    static let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")

    static func encode(_ fields: [(String, String)]) -> String {
        fields.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}

/// A `multipart/form-data` body built in memory (torrent files are small).
public struct MultipartForm: Sendable {
    public let boundary = "qbt-" + UUID().uuidString
    public private(set) var body = Data()

    public init() {}

    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    public mutating func field(_ name: String, _ value: String) {
        body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8))
    }

    public mutating func file(_ name: String, filename: String, data: Data, type: String = "application/x-bittorrent") {
        let safe = filename.replacingOccurrences(of: "\"", with: "_").replacingOccurrences(of: "\r", with: "")
            .replacingOccurrences(of: "\n", with: "")
        body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(safe)\"\r\nContent-Type: \(type)\r\n\r\n".utf8))
        body.append(data)
        body.append(Data("\r\n".utf8))
    }

    /// The body with its closing boundary.
    public func finished() -> MultipartForm {
        var copy = self
        copy.body.append(Data("--\(boundary)--\r\n".utf8))
        return copy
    }
}
