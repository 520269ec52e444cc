/// Processing instructions without data (`<?name?>`), which must not reach Foundation's `XMLParser` as written:
/// libxml2 hands such a PI to its handler with no data at all, and swift-corelibs-foundation's handler reads that
/// missing text and crashes the process (found by `qbtd-fuzz rss`). With a space (`<?name ?>`) the data is empty,
/// not missing; qbtd's readers ignore PIs either way.
public enum EmptyInstructions {
    /// At `<?name?>`, the index just past `name`, where the space goes; nil for any other markup.
    public static func nameEnd(in input: [UInt8], at index: Int) -> Int? {
        guard index + 1 < input.count, input[index] == UInt8(ascii: "<"), input[index + 1] == UInt8(ascii: "?") else { return nil }
        var j = index + 2
        while j < input.count, !ends(input[j]) { j += 1 }
        guard j > index + 2, j + 1 < input.count, input[j] == UInt8(ascii: "?"), input[j + 1] == UInt8(ascii: ">") else { return nil }
        return j
    }

    /// The document with a space in every such PI outside CDATA sections and comments.
    public static func padded(_ input: [UInt8]) -> [UInt8] {
        guard input.contains(UInt8(ascii: "?")) else { return input }
        var out: [UInt8] = []
        out.reserveCapacity(input.count + 16)
        var i = 0
        while i < input.count {
            if input[i] == UInt8(ascii: "<") {
                if let close = pastCDATAOrComment(input, at: i) {
                    out.append(contentsOf: input[i..<close])
                    i = close
                    continue
                }
                if let end = nameEnd(in: input, at: i) {
                    out.append(contentsOf: input[i..<end])
                    out.append(UInt8(ascii: " "))
                    i = end
                    continue
                }
            }
            out.append(input[i])
            i += 1
        }
        return out
    }

    /// At `<![CDATA[` or `<!--`, the index past its end (or the input's end); nil elsewhere.
    public static func pastCDATAOrComment(_ input: [UInt8], at index: Int) -> Int? {
        for (open, close) in [(cdataOpen, cdataClose), (commentOpen, commentClose)] where matches(open, input, at: index) {
            var j = index + open.count
            while j < input.count {
                if input[j] == close[0], matches(close, input, at: j) { return j + close.count }
                j += 1
            }
            return input.count
        }
        return nil
    }

    private static let cdataOpen = Array("<![CDATA[".utf8), cdataClose = Array("]]>".utf8)
    private static let commentOpen = Array("<!--".utf8), commentClose = Array("-->".utf8)

    private static func matches(_ pattern: [UInt8], _ input: [UInt8], at index: Int) -> Bool {
        index + pattern.count <= input.count && input[index..<(index + pattern.count)].elementsEqual(pattern)
    }

    private static func ends(_ b: UInt8) -> Bool {
        b == UInt8(ascii: "?") || b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") || b == UInt8(ascii: "\n")
            || b == UInt8(ascii: "\r") || b == UInt8(ascii: "<") || b == UInt8(ascii: ">")
    }
}
