import Foundation

/// The `<?xml … encoding="…"?>` declaration at the head of a document.
enum XMLDeclaration {
    /// The declared encoding name; nil when there is no declaration or it names none.
    static func encoding(in bytes: [UInt8]) -> String? {
        guard let range = encodingRange(in: bytes) else { return nil }
        return String(decoding: bytes[range], as: UTF8.self)
    }

    /// The document with its declared encoding (if any) replaced by UTF-8.
    static func relabelledUTF8(_ bytes: [UInt8]) -> [UInt8] {
        guard let range = encodingRange(in: bytes) else { return bytes }
        var out = bytes
        out.replaceSubrange(range, with: Array("UTF-8".utf8))
        return out
    }

    /// Where the encoding name lies inside the declaration.
    private static func encodingRange(in bytes: [UInt8]) -> Range<Int>? {
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        guard bytes[start...].starts(with: Array("<?xml".utf8)) else { return nil }
        // The declaration ends at the first "?>"; it is short, so only its first kilobyte is looked at.
        let limit = min(bytes.count, start + 1024)
        var end = start
        while end + 1 < limit, !(bytes[end] == UInt8(ascii: "?") && bytes[end + 1] == UInt8(ascii: ">")) { end += 1 }
        guard end + 1 < limit else { return nil }
        let keyword = Array("encoding".utf8)
        var i = start
        while i + keyword.count <= end {
            if bytes[i..<(i + keyword.count)].elementsEqual(keyword) { break }
            i += 1
        }
        guard i + keyword.count <= end else { return nil }
        i += keyword.count
        func skipSpace() { while i < end, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 } }
        skipSpace()
        guard i < end, bytes[i] == UInt8(ascii: "=") else { return nil }
        i += 1
        skipSpace()
        guard i < end, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") else { return nil }
        let quote = bytes[i]
        let nameStart = i + 1
        var nameEnd = nameStart
        while nameEnd < end, bytes[nameEnd] != quote { nameEnd += 1 }
        guard nameEnd < end else { return nil }
        return nameStart..<nameEnd
    }
}
