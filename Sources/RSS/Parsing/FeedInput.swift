import Foundation
import SafeXML

/// A feed document made ready for the XML parser: UTF-8 (or another ASCII-compatible encoding it declares), no
/// entity declarations, XHTML entities turned into character references, no processing instruction without data.
struct FeedInput {
    /// What the XML parser reads.
    var bytes: [UInt8]
    /// The document before entity rewriting, for error positions.
    var source: [UInt8]
    /// Where each rewritten reference ends, in `bytes` and in `source`, in order.
    var rewrites: [(output: Int, source: Int)]

    static let entityDeclarationsRefused = "Entity declarations are not accepted."

    /// The prepared document, or the error text that refuses it.
    static func prepare(_ data: Data) -> Result<FeedInput, FeedInputRefusal> {
        var bytes = [UInt8](data)
        if let decoded = TextEncodingSniffer.wideUnicode(bytes) {
            // UTF-16/32: read here, handed on as UTF-8 so the checks below see the markup.
            bytes = XMLDeclaration.relabelledUTF8(Array(decoded.utf8))
        } else if let declared = XMLDeclaration.encoding(in: bytes) {
            if TextEncodingSniffer.isASCIIIncompatible(declared) { return .failure(.unsupportedEncoding(declared)) }
            if TextEncodingSniffer.isWideUnicodeName(declared) { bytes = XMLDeclaration.relabelledUTF8(bytes) }
        } else if TextEncodingSniffer.looksEBCDIC(bytes) {
            return .failure(.unsupportedEncoding("EBCDIC"))
        }
        if bytes.containsSequence(Array("<!DOCTYPE".utf8)), bytes.containsSequence(Array("<!ENTITY".utf8)) {
            return .failure(.entityDeclarations)
        }
        let (rewritten, rewrites) = FeedMarkupRewriter.rewrite(bytes)
        return .success(FeedInput(bytes: rewritten, source: bytes, rewrites: rewrites))
    }

    /// The byte in `source` that a byte offset in `bytes` came from.
    func sourceOffset(ofOutput offset: Int) -> Int {
        var low = 0, high = rewrites.count
        while low < high {
            let mid = (low + high) / 2
            if rewrites[mid].output <= offset { low = mid + 1 } else { high = mid }
        }
        guard low > 0 else { return min(offset, source.count) }
        let anchor = rewrites[low - 1]
        return min(anchor.source + (offset - anchor.output), source.count)
    }
}

/// Why a document is not handed to the XML parser at all.
enum FeedInputRefusal: Error, Equatable {
    case entityDeclarations
    case unsupportedEncoding(String)

    var message: String {
        switch self {
        case .entityDeclarations: return FeedInput.entityDeclarationsRefused
        case .unsupportedEncoding(let name): return "Unsupported encoding: \(name)."
        }
    }
}
