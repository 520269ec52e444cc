import Foundation

/// Error texts for libxml2's error codes (XMLParser gives only the code), in the form qBittorrent shows:
/// "<message> (line: <n>, column: <n>, offset: <n>)."
enum XMLErrorText {
    /// libxml2 codes that are warnings or namespace/validity remarks, not well-formedness errors.
    static func isWarning(_ code: Int) -> Bool {
        [27, 93, 97, 98, 99, 100, 102, 106, 107, 111, 512].contains(code) || code >= 200
    }

    static func message(code: Int, entity: String?, openElements: Int) -> String {
        switch code {
        case 2: return "Out of memory."
        case 3: return "Start tag expected."
        case 4: return "Premature end of document."
        case 5: return openElements > 0 ? "Premature end of document." : "Extra content at end of document."
        case 6, 7, 8: return "Invalid character reference."
        case 9: return "Invalid XML character."
        case 10...21: return "Reference not allowed here."
        case 22, 23, 24, 25: return "Invalid entity reference."
        case 26:
            if let entity { return "Entity '\(entity)' not declared." }
            return "Undeclared entity."
        case 28, 29, 30: return "Reference to an unusable entity."
        case 31, 32, 79: return "Unsupported encoding."
        case 33, 34, 43, 44: return "Invalid or unterminated literal."
        case 35: return "Invalid namespace declaration."
        case 36, 37, 84, 87, 88, 90: return "Invalid entity value."
        case 38: return "'<' not allowed in attribute value."
        case 39, 40: return "Invalid attribute value."
        case 41: return "Attribute without value."
        case 42: return "Attribute redefined."
        case 45: return "Unterminated comment."
        case 46, 47: return "Invalid processing instruction."
        case 48...55, 58, 59, 60, 83, 95: return "Invalid document type declaration."
        case 56, 57, 96, 108, 109: return "Invalid XML declaration."
        case 61: return "Unterminated document type declaration."
        case 62: return "Sequence ']]>' not allowed in content."
        case 63: return "Unterminated CDATA section."
        case 64: return "XML declaration not at start of document."
        case 65, 66: return "Expected white space."
        case 67, 68, 110: return "Invalid name."
        case 69: return "Expected character data."
        case 70, 91, 92: return "Invalid URI."
        case 71: return "Expected a public identifier."
        case 72: return "Expected '<'."
        case 73: return "Expected '>' to end the tag."
        case 74: return "Expected '</'."
        case 75: return "Expected '='."
        case 76: return "Opening and ending tag mismatch."
        case 77: return "Premature end of document."
        case 78: return "Invalid standalone value."
        case 80: return "'--' not allowed in a comment."
        case 81: return "Encountered incorrectly encoded content."
        case 85: return "Document is not well balanced."
        case 86: return "Extra content at end of document."
        case 89: return "Entity reference loop."
        case 1: return "Internal XML parser error."
        default: return "XML error \(code)."
        }
    }

    static func text(_ message: String, line: Int, column: Int, offset: Int) -> String {
        "\(message) (line: \(line), column: \(column), offset: \(offset))."
    }
}
