import Foundation
import SafeXML

/// What the document needs before Foundation's XML parser reads it. CDATA sections and comments are left alone.
/// - References to undeclared XHTML entities (`&nbsp;`, `&eacute;`, …) become numeric character references, so the
///   parser reads them as qBittorrent's entity resolver does (the XML entities and numeric references stay).
/// - A processing instruction without data (`<?name?>`) gets a space (`<?name ?>`): see `EmptyInstructions`.
enum FeedMarkupRewriter {
    static func rewrite(_ input: [UInt8]) -> (bytes: [UInt8], rewrites: [(output: Int, source: Int)]) {
        var out: [UInt8] = []
        var rewrites: [(output: Int, source: Int)] = []
        var i = 0
        let n = input.count
        guard input.contains(UInt8(ascii: "&")) || input.containsSequence(Array("<?".utf8)) else { return (input, []) }
        out.reserveCapacity(n + n / 16)
        while i < n {
            let byte = input[i]
            if byte == UInt8(ascii: "<") {
                if let nameEnd = EmptyInstructions.nameEnd(in: input, at: i) {
                    out.append(contentsOf: input[i..<nameEnd])
                    out.append(UInt8(ascii: " "))
                    i = nameEnd
                    rewrites.append((out.count, i))
                    continue
                }
                if let skipTo = EmptyInstructions.pastCDATAOrComment(input, at: i) {
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
