import CLinux
import Foundation

/// A `multipart/form-data` parser fed chunk by chunk: part bodies are handed on as they arrive and never held
/// whole. It keeps at most one delimiter's worth of bytes between chunks (and a part's headers, capped at 16 KiB).
public struct MultipartStreamParser {
    public enum Event {
        case part(name: String, filename: String?, contentType: String?)
        case data(UnsafeRawBufferPointer)
        case partEnd
    }

    public enum Failure: Error, CustomStringConvertible {
        case malformed(String)
        public var description: String {
            switch self { case .malformed(let why): "malformed multipart body: \(why)" }
        }
    }

    enum State { case preamble, afterBoundary, headers, body, epilogue }

    private let delimiter: [UInt8]
    private var state = State.preamble
    private var carry: [UInt8]
    private var preamble = 0
    static let headerLimit = 16 * 1024

    public var isComplete: Bool { state == .epilogue }

    public init(boundary: String) {
        delimiter = Array("\r\n--\(boundary)".utf8)
        carry = Array("\r\n".utf8)  // so the first boundary, at the very start, matches the delimiter too
    }

    /// `multipart/form-data; boundary=…` → the boundary (1–70 characters, RFC 2046).
    public static func boundary(fromContentType value: String) -> String? {
        guard value.lowercased().hasPrefix("multipart/form-data") else { return nil }
        for parameter in value.split(separator: ";").dropFirst() {
            let kv = parameter.split(separator: "=", maxSplits: 1)
            guard kv.count == 2, kv[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else { continue }
            var b = kv[1].trimmingCharacters(in: .whitespaces)
            if b.hasPrefix("\""), b.hasSuffix("\""), b.count >= 2 { b = String(b.dropFirst().dropLast()) }
            return (1...70).contains(b.utf8.count) ? b : nil
        }
        return nil
    }

    public mutating func feed(_ chunk: UnsafeRawBufferPointer, _ handle: (Event) throws -> Void) throws {
        if carry.isEmpty { return try process(chunk, handle) }
        if state == .body, chunk.count >= delimiter.count {
            // The hot path stays copy-free: only a delimiter that starts in the carried tail needs the two joined
            // (and lies wholly in the junction, the chunk being at least a delimiter long).
            let junction = carry + Array(chunk.prefix(delimiter.count))
            let held = carry
            carry = []
            if let i = junction.withUnsafeBytes({ Self.find(delimiter, in: $0, from: 0) }), i < held.count {
                if i > 0 { try held.withUnsafeBytes { try handle(.data(UnsafeRawBufferPointer(rebasing: $0[0..<i]))) } }
                try handle(.partEnd)
                state = .afterBoundary
                let consumed = i + delimiter.count - held.count
                return try feed(UnsafeRawBufferPointer(rebasing: chunk[consumed...]), handle)
            }
            try held.withUnsafeBytes { try handle(.data($0)) }
            return try process(chunk, handle)
        }
        let work = carry + Array(chunk)
        carry = []
        try work.withUnsafeBytes { try process($0, handle) }
    }

    /// Parses `buffer` from the current state; whatever might continue in the next chunk is kept in `carry`.
    private mutating func process(_ buffer: UnsafeRawBufferPointer, _ handle: (Event) throws -> Void) throws {
        var at = 0
        while at < buffer.count {
            switch state {
            case .epilogue:
                return
            case .preamble:
                guard let i = Self.find(delimiter, in: buffer, from: at) else {
                    preamble += buffer.count - at
                    guard preamble <= 64 * 1024 else { throw Failure.malformed("no boundary in the first 64 KiB") }
                    carry = Array(buffer[max(at, buffer.count - delimiter.count + 1)...])
                    return
                }
                at = i + delimiter.count
                state = .afterBoundary
            case .afterBoundary:
                while at < buffer.count, buffer[at] == 0x20 || buffer[at] == 0x09 { at += 1 }  // transport padding
                guard buffer.count - at >= 2 else { carry = Array(buffer[at...]); return }
                if buffer[at] == 0x2d, buffer[at + 1] == 0x2d { state = .epilogue; return }
                guard buffer[at] == 0x0d, buffer[at + 1] == 0x0a else { throw Failure.malformed("bad boundary line") }
                at += 2
                state = .headers
            case .headers:
                guard let end = Self.find(Array("\r\n\r\n".utf8), in: buffer, from: at) else {
                    guard buffer.count - at <= Self.headerLimit else { throw Failure.malformed("part headers too long") }
                    carry = Array(buffer[at...])
                    return
                }
                // A part without headers starts with the blank line at once.
                let text = String(decoding: UnsafeRawBufferPointer(rebasing: buffer[at..<end]), as: UTF8.self)
                try handle(try Self.part(fromHeaders: text))
                at = end + 4
                state = .body
            case .body:
                if let i = Self.find(delimiter, in: buffer, from: at) {
                    if i > at { try handle(.data(UnsafeRawBufferPointer(rebasing: buffer[at..<i]))) }
                    try handle(.partEnd)
                    at = i + delimiter.count
                    state = .afterBoundary
                } else {
                    // Everything but a tail that could be the start of the delimiter.
                    let keep = min(delimiter.count - 1, buffer.count - at)
                    let upTo = buffer.count - keep
                    if upTo > at { try handle(.data(UnsafeRawBufferPointer(rebasing: buffer[at..<upTo]))) }
                    carry = Array(buffer[upTo...])
                    return
                }
            }
        }
    }

    /// Whether the body ended with the closing boundary; a truncated body is an error.
    public func finish() throws {
        guard state == .epilogue else { throw Failure.malformed("the body ended before the closing boundary") }
    }

    static func part(fromHeaders text: String) throws -> Event {
        var name: String?, filename: String?, contentType: String?
        for line in text.components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if key == "content-type" { contentType = value }
            guard key == "content-disposition" else { continue }
            for (k, v) in dispositionParameters(value) {
                if k == "name" { name = v }
                if k == "filename" { filename = v }
                if k == "filename*", let decoded = rfc5987(v) { filename = decoded }
            }
        }
        guard let name else { throw Failure.malformed("a part has no name") }
        return .part(name: name, filename: filename, contentType: contentType)
    }

    /// `form-data; name="a"; filename="b;c.txt"`: quoted values may hold `;` and escaped quotes.
    static func dispositionParameters(_ value: String) -> [(String, String)] {
        var out: [(String, String)] = []
        var chars = Substring(value)
        while let semicolon = chars.firstIndex(of: ";") {
            chars = chars[chars.index(after: semicolon)...].drop { $0 == " " }
            guard let eq = chars.firstIndex(of: "=") else { break }
            let key = chars[..<eq].trimmingCharacters(in: .whitespaces).lowercased()
            var rest = chars[chars.index(after: eq)...]
            var v = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var escaped = false
                var end = rest.endIndex
                for i in rest.indices {
                    let c = rest[i]
                    if escaped { v.append(c); escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { end = i; break } else { v.append(c) }
                }
                chars = end < rest.endIndex ? rest[rest.index(after: end)...] : rest[rest.endIndex...]
            } else {
                let end = rest.firstIndex(of: ";") ?? rest.endIndex
                v = rest[..<end].trimmingCharacters(in: .whitespaces)
                chars = rest[end...]
            }
            out.append((key, v))
        }
        return out
    }

    /// `UTF-8''na%C3%AFve.txt`
    static func rfc5987(_ value: String) -> String? {
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].lowercased() == "utf-8" else { return nil }
        return String(parts[2]).removingPercentEncoding
    }

    /// memmem over the buffer from `from`.
    static func find(_ needle: [UInt8], in haystack: UnsafeRawBufferPointer, from: Int) -> Int? {
        guard let base = haystack.baseAddress, haystack.count - from >= needle.count else { return nil }
        return needle.withUnsafeBytes { n -> Int? in
            guard let found = qbt_memmem(base + from, haystack.count - from, n.baseAddress, n.count) else { return nil }
            return base.distance(to: UnsafeRawPointer(found))
        }
    }
}
