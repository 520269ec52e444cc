import Foundation

/// Recognises the encodings in which the document's markup is not ASCII bytes.
enum TextEncodingSniffer {
    /// The text of a UTF-16 or UTF-32 document (by byte-order mark, or by how "<" starts it); nil for others.
    static func wideUnicode(_ b: [UInt8]) -> String? {
        func starts(_ prefix: [UInt8]) -> Bool { b.count >= prefix.count && Array(b.prefix(prefix.count)) == prefix }
        if starts([0x00, 0x00, 0xFE, 0xFF]) { return utf32(b.dropFirst(4), bigEndian: true) }
        if starts([0xFF, 0xFE, 0x00, 0x00]) { return utf32(b.dropFirst(4), bigEndian: false) }
        if starts([0xFE, 0xFF]) { return utf16(b.dropFirst(2), bigEndian: true) }
        if starts([0xFF, 0xFE]) { return utf16(b.dropFirst(2), bigEndian: false) }
        if starts([0x00, 0x00, 0x00, 0x3C]) { return utf32(b[...], bigEndian: true) }
        if starts([0x3C, 0x00, 0x00, 0x00]) { return utf32(b[...], bigEndian: false) }
        if starts([0x00, 0x3C, 0x00]) { return utf16(b[...], bigEndian: true) }
        if starts([0x3C, 0x00]) { return utf16(b[...], bigEndian: false) }
        return nil
    }

    /// EBCDIC's "<?xm".
    static func looksEBCDIC(_ b: [UInt8]) -> Bool {
        b.count >= 4 && Array(b.prefix(4)) == [0x4C, 0x6F, 0xA7, 0x94]
    }

    /// Encodings whose markup bytes are not ASCII (UTF-7, EBCDIC): refused, because the checks on the bytes could
    /// not see what the XML parser would.
    static func isASCIIIncompatible(_ name: String) -> Bool {
        let upper = name.uppercased()
        if upper.contains("UTF-7") || upper.contains("UTF7") || upper.hasPrefix("EBCDIC") { return true }
        for prefix in ["IBM-", "IBM", "CP-", "CP", "CCSID-", "CCSID"] where upper.hasPrefix(prefix) {
            if let number = Int(upper.dropFirst(prefix.count)) { return ebcdicCodePages.contains(number) }
        }
        return false
    }

    /// UTF-16/32 and UCS-2/4 labels on a document whose bytes are ASCII-compatible: it is read as UTF-8.
    static func isWideUnicodeName(_ name: String) -> Bool {
        let upper = name.uppercased()
        return ["UTF-16", "UTF16", "UTF-32", "UTF32", "UCS-2", "UCS2", "UCS-4", "UCS4", "ISO-10646-UCS"]
            .contains { upper.hasPrefix($0) }
    }

    private static let ebcdicCodePages: Set<Int> = [
        37, 273, 277, 278, 280, 284, 285, 290, 297, 420, 423, 424, 500, 833, 836, 838, 870, 871, 875, 880, 905, 918,
        930, 933, 935, 937, 939, 1025, 1026, 1047, 1140, 1141, 1142, 1143, 1144, 1145, 1146, 1147, 1148, 1149,
    ]

    private static func utf16(_ b: ArraySlice<UInt8>, bigEndian: Bool) -> String {
        var units: [UInt16] = []
        units.reserveCapacity(b.count / 2)
        var i = b.startIndex
        while i + 1 < b.endIndex {
            let (hi, lo) = bigEndian ? (b[i], b[i + 1]) : (b[i + 1], b[i])
            units.append(UInt16(hi) << 8 | UInt16(lo))
            i += 2
        }
        return String(decoding: units, as: UTF16.self)
    }

    private static func utf32(_ b: ArraySlice<UInt8>, bigEndian: Bool) -> String {
        var scalars = String.UnicodeScalarView()
        var i = b.startIndex
        while i + 3 < b.endIndex {
            let bytes = bigEndian ? [b[i], b[i + 1], b[i + 2], b[i + 3]] : [b[i + 3], b[i + 2], b[i + 1], b[i]]
            let value = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
            i += 4
        }
        return String(scalars)
    }
}
