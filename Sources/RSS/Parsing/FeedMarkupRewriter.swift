import Foundation

/// What the document needs before Foundation's XML parser reads it. CDATA sections and comments are left alone.
/// - References to undeclared XHTML entities (`&nbsp;`, `&eacute;`, …) become numeric character references, so the
///   parser reads them as qBittorrent's entity resolver does (the XML entities and numeric references stay).
/// - A processing instruction without data (`<?name?>`) gets a space (`<?name ?>`): libxml2 hands such a PI to
///   its handler with no data at all, and swift-corelibs-foundation's handler reads that missing text and crashes
///   the process (found by `qbtd-fuzz rss`). With the space the data is empty, not missing; feeds ignore PIs.
enum FeedMarkupRewriter {
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

        guard input.contains(UInt8(ascii: "&")) || input.containsSequence(Array("<?".utf8)) else { return (input, []) }
        out.reserveCapacity(n + n / 16)
        while i < n {
            let byte = input[i]
            if byte == UInt8(ascii: "<") {
                let skipTo: Int?
                if matches(cdataOpen, at: i) {
                    skipTo = past(cdataClose, from: i + cdataOpen.count)
                } else if matches(commentOpen, at: i) {
                    skipTo = past(commentClose, from: i + commentOpen.count)
                } else if let nameEnd = emptyInstructionName(in: input, at: i) {
                    out.append(contentsOf: input[i..<nameEnd])
                    out.append(UInt8(ascii: " "))
                    i = nameEnd
                    rewrites.append((out.count, i))
                    continue
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

    /// At `<?name?>`, the index just past `name`; nil for any other markup.
    private static func emptyInstructionName(in input: [UInt8], at index: Int) -> Int? {
        guard index + 1 < input.count, input[index + 1] == UInt8(ascii: "?") else { return nil }
        var j = index + 2
        while j < input.count, !isInstructionEnd(input[j]) { j += 1 }
        guard j > index + 2, j + 1 < input.count, input[j] == UInt8(ascii: "?"), input[j + 1] == UInt8(ascii: ">") else { return nil }
        return j
    }

    private static func isInstructionEnd(_ b: UInt8) -> Bool {
        b == UInt8(ascii: "?") || b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") || b == UInt8(ascii: "\n")
            || b == UInt8(ascii: "\r") || b == UInt8(ascii: "<") || b == UInt8(ascii: ">")
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
