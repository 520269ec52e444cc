import Foundation

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}

extension Int {
    /// The value of a non-empty run of ASCII digits (at most 9); nil for anything else.
    static func asciiDigits<S: StringProtocol>(_ text: S) -> Int? {
        guard !text.isEmpty, text.count <= 9 else { return nil }
        var value = 0
        for scalar in text.unicodeScalars {
            guard scalar.value >= 48, scalar.value <= 57 else { return nil }
            value = value * 10 + Int(scalar.value - 48)
        }
        return value
    }
}

extension String {
    /// The text without leading and trailing white space, as Qt's QString::trimmed() sees it.
    var feedTrimmed: String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.isFeedSpace }) else { return "" }
        guard let last = scalars.lastIndex(where: { !$0.isFeedSpace }) else { return "" }
        return String(scalars[start...last])
    }

    /// Whether the text starts with "magnet:", in any case.
    var hasMagnetPrefix: Bool {
        let scalars = Array(unicodeScalars.prefix(7))
        guard scalars.count == 7 else { return false }
        return zip(scalars, "magnet:".unicodeScalars).allSatisfy { given, wanted in
            given == wanted || (given.value >= 65 && given.value <= 90 && given.value + 32 == wanted.value)
        }
    }
}

extension Unicode.Scalar {
    /// Qt's QChar::isSpace: tab to carriage return, U+0085, and the Unicode separators (Zs, Zl, Zp).
    var isFeedSpace: Bool {
        switch value {
        case 0x09...0x0D, 0x20, 0x85, 0xA0: return true
        default:
            switch properties.generalCategory {
            case .spaceSeparator, .lineSeparator, .paragraphSeparator: return true
            default: return false
            }
        }
    }
}
