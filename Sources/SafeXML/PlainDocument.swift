import Foundation

/// The one shape of XML qbtd reads from services that all send it (Torznab indexers): UTF-8, no other encoding
/// declared, no DOCTYPE. Anything else is refused before Foundation's XMLParser sees it: libxml2 decodes other
/// encodings through iconv and reads DTDs, and `qbtd-fuzz torznab` crashed the process inside both (a UTF-7
/// document with an internal subset).
public enum PlainDocument {
    /// Why the document is refused; nil when it has the plain shape.
    public static func problem(_ bytes: [UInt8]) -> String? {
        guard String(validating: bytes, as: UTF8.self) != nil else { return "the answer is not UTF-8" }
        guard !bytes.contains(0) else { return "the answer holds NUL bytes" }
        // The declaration is read up to the first `>`, whatever it looks like: libxml2 takes an encoding from a
        // malformed declaration too.
        let prolog = String(decoding: bytes.prefix(1024).prefix { $0 != UInt8(ascii: ">") }, as: UTF8.self).lowercased()
        if prolog.hasPrefix("<?xml") || prolog.hasPrefix("\u{FEFF}<?xml"), let keyword = prolog.range(of: "encoding") {
            let declared = prolog[keyword.upperBound...]
                .drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" || $0 == "\t" || $0 == "\n" || $0 == "\r" }
                .prefix { $0 != "\"" && $0 != "'" && $0 != " " && $0 != "?" }
            guard declared == "utf-8" || declared == "utf8" else { return "the answer declares the encoding \(declared), not UTF-8" }
        }
        if bytes.containsSequence(Array("<!DOCTYPE".utf8)) { return "the answer has a DOCTYPE" }
        return nil
    }
}
