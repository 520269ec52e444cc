import Foundation

/// The one shape of XML qbtd reads from services that all send it (Torznab indexers): UTF-8, no other encoding
/// declared, no DOCTYPE. Anything else is refused before Foundation's XMLParser sees it: libxml2 decodes other
/// encodings through iconv and reads DTDs, and `qbtd-fuzz torznab` crashed the process inside both (a UTF-7
/// document with an internal subset).
public enum PlainDocument {
    /// Why the document is refused; nil when it has the plain shape.
    public static func problem(_ bytes: [UInt8]) -> String? {
        guard String(validating: bytes, as: UTF8.self) != nil else { return "the answer is not UTF-8" }
        let head = String(decoding: bytes.prefix(256), as: UTF8.self).lowercased()
        if head.hasPrefix("<?xml"), let end = head.range(of: "?>"),
           let encoding = head[..<end.lowerBound].range(of: "encoding") {
            let declared = head[encoding.upperBound..<end.lowerBound]
                .drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" }
                .prefix { $0 != "\"" && $0 != "'" && $0 != " " }
            guard declared == "utf-8" || declared == "utf8" else { return "the answer declares the encoding \(declared), not UTF-8" }
        }
        if contains(Array("<!DOCTYPE".utf8), in: bytes) { return "the answer has a DOCTYPE" }
        return nil
    }

    private static func contains(_ needle: [UInt8], in bytes: [UInt8]) -> Bool {
        guard bytes.count >= needle.count else { return false }
        var i = 0
        while i <= bytes.count - needle.count {
            if bytes[i] == needle[0], bytes[i..<(i + needle.count)].elementsEqual(needle) { return true }
            i += 1
        }
        return false
    }
}
