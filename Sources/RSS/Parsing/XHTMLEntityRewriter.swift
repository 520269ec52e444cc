import Foundation

/// Turns references to undeclared XHTML entities (`&nbsp;`, `&eacute;`, …) into numeric character references, so the
/// XML parser reads them as qBittorrent's entity resolver does. CDATA sections and comments are left alone, and
/// so are the XML entities and numeric references.
enum XHTMLEntityRewriter {
    static func rewrite(_ input: [UInt8]) -> (bytes: [UInt8], rewrites: [(output: Int, source: Int)]) {
        var out: [UInt8] = []
        var rewrites: [(output: Int, source: Int)] = []
        var i = 0
        let n = input.count
        let cdataOpen = Array("<![CDATA[".utf8), cdataClose = Array("]]>".utf8)
        let commentOpen = Array("<!--".utf8), commentClose = Array("-->".utf8)

        func matches(_ pattern: [UInt8], at index: Int) -> Bool {
            index + pattern.count <= n && input[index..<(index + pattern.count)].elementsEqual(pattern)
        }
        /// The index just past `close`, searching from `from`; the end when it never comes.
        func past(_ close: [UInt8], from: Int) -> Int {
            var j = from
            while j < n {
                if input[j] == close[0], matches(close, at: j) { return j + close.count }
                j += 1
            }
            return n
        }

        guard input.contains(UInt8(ascii: "&")) else { return (input, []) }
        out.reserveCapacity(n + n / 16)
        while i < n {
            let byte = input[i]
            if byte == UInt8(ascii: "<") {
                let skipTo: Int?
                if matches(cdataOpen, at: i) {
                    skipTo = past(cdataClose, from: i + cdataOpen.count)
                } else if matches(commentOpen, at: i) {
                    skipTo = past(commentClose, from: i + commentOpen.count)
                } else {
                    skipTo = nil
                }
                if let skipTo {
                    out.append(contentsOf: input[i..<skipTo])
                    i = skipTo
                    continue
                }
            } else if byte == UInt8(ascii: "&"), let (codePoint, length) = entity(in: input, at: i) {
                out.append(contentsOf: Array("&#\(codePoint);".utf8))
                i += length
                rewrites.append((out.count, i))
                continue
            }
            out.append(byte)
            i += 1
        }
        return rewrites.isEmpty ? (input, []) : (out, rewrites)
    }

    /// `&name;` at `index` for a name in the XHTML table: its code point and the reference's length.
    private static func entity(in input: [UInt8], at index: Int) -> (UInt32, Int)? {
        var j = index + 1
        let limit = min(input.count, j + XHTMLEntities.longestName + 1)
        while j < limit, isNameByte(input[j]) { j += 1 }
        guard j < limit, input[j] == UInt8(ascii: ";"), j > index + 1 else { return nil }
        let name = String(decoding: input[(index + 1)..<j], as: UTF8.self)
        guard let codePoint = XHTMLEntities.codePoints[name] else { return nil }
        return (codePoint, j + 1 - index)
    }

    private static func isNameByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
    }
}
