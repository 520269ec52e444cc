import Foundation

/// A multipart/form-data parser for bodies already held in memory (the WebAPI caps them at 64 MiB × 1.1,
/// as qBittorrent does). Parts with a filename become files, whatever their field name; others are fields.
public enum Multipart {
    public enum Failure: Error { case malformed(String) }

    public static func boundary(fromContentType contentType: String) -> String? {
        for piece in contentType.split(separator: ";").dropFirst() {
            let kv = piece.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if kv.count == 2, kv[0].lowercased() == "boundary" {
                let value = kv[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                return value.isEmpty || value.count > 70 ? nil : value  // RFC 2046: 1 to 70 characters
            }
        }
        return nil
    }

    public static func parse(_ body: [UInt8], boundary: String) throws -> FormBody {
        let delimiter = Array("--\(boundary)".utf8)
        var params = FormBody()
        guard var cursor = find(delimiter, in: body, from: 0) else { throw Failure.malformed("no boundary") }
        while true {
            cursor += delimiter.count
            // "--" after a delimiter closes the body.
            if cursor + 1 < body.count && body[cursor] == UInt8(ascii: "-") && body[cursor + 1] == UInt8(ascii: "-") { break }
            guard let lineEnd = find([13, 10], in: body, from: cursor) else { throw Failure.malformed("truncated part") }
            let partStart = lineEnd + 2
            guard let headerEnd = find([13, 10, 13, 10], in: body, from: partStart) else { throw Failure.malformed("part without headers") }
            guard let next = find([13, 10] + delimiter, in: body, from: headerEnd + 4) else { throw Failure.malformed("unterminated part") }
            let headers = String(decoding: body[partStart..<headerEnd], as: UTF8.self)
            let content = Array(body[(headerEnd + 4)..<next])
            let disposition = parseDisposition(headers)
            if let name = disposition["name"] {
                if let filename = disposition["filename"] {
                    params.files.append(UploadedFile(field: name, filename: filename, data: content))
                } else {
                    params.fields[name] = String(decoding: content, as: UTF8.self)
                }
            }
            cursor = next + 2
        }
        return params
    }

    private static func parseDisposition(_ headers: String) -> [String: String] {
        var out: [String: String] = [:]
        for line in headers.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" }) {
            guard line.lowercased().hasPrefix("content-disposition:") else { continue }
            for item in line.split(separator: ";").dropFirst() {
                let kv = item.split(separator: "=", maxSplits: 1)
                guard kv.count == 2 else { continue }
                let key = kv[0].trimmingCharacters(in: .whitespaces).lowercased()
                var value = kv[1].trimmingCharacters(in: .whitespaces)
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
                out[key] = value
            }
        }
        return out
    }

    /// First index of `needle` in `haystack` at or after `start` (memchr on the first byte, then compare).
    public static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        let first = needle[0]
        var i = start
        let last = haystack.count - needle.count
        while i <= last {
            if haystack[i] == first {
                var j = 1
                while j < needle.count && haystack[i + j] == needle[j] { j += 1 }
                if j == needle.count { return i }
            }
            i += 1
        }
        return nil
    }
}
