/// Rewrites the PCRE patterns Qt's wildcard conversion produces (literals, escaped metacharacters, classes,
/// `*`) as ICU patterns that match what PCRE would, case-insensitively and without Unicode properties.
/// ICU differs where it matters: `[` nests sets, `&&`/`--` are set operators, and literal strings fold case
/// fully ("ss" matches "ß"); so every literal is written as a one-character set, which folds per character
/// as PCRE does.
struct PCREPatternTranslator {
    private let pattern: [Unicode.Scalar]
    private var index = 0

    /// nil when PCRE would refuse the pattern.
    static func icuPattern(_ pattern: [Unicode.Scalar]) -> String? {
        var translator = PCREPatternTranslator(pattern: pattern)
        return translator.translate()
    }

    private init(pattern: [Unicode.Scalar]) {
        self.pattern = pattern
    }

    /// A class member: one character (which can start a range) or a set of them.
    private enum Member {
        case character(Unicode.Scalar)
        case set(String)
    }

    private mutating func translate() -> String? {
        var output = ""
        var repeatable = false
        while index < pattern.count {
            let scalar = pattern[index]
            index += 1
            switch scalar {
            case "\\":
                guard let member = escape() else { return nil }
                output += Self.icu(member)
                repeatable = true
            case "[":
                guard let set = characterClass() else { return nil }
                output += set
                repeatable = true
            case "*":
                guard repeatable else { return nil }
                output += "*"
                repeatable = false
            case "(", ")", "|", "^", "$", ".", "?", "+", "{":
                return nil  // Qt never leaves these bare.
            default:
                output += Self.icu(.character(scalar))
                repeatable = true
            }
        }
        return output
    }

    /// After a backslash: `\d`, `\D`, or an escaped non-alphanumeric character.
    private mutating func escape() -> Member? {
        guard index < pattern.count else { return nil }
        let scalar = pattern[index]
        index += 1
        switch scalar {
        case "d": return .set("[0-9]")
        case "D": return .set("[^0-9]")
        default:
            let alphanumeric = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))
            return alphanumeric ? nil : .character(scalar)
        }
    }

    /// A class, `index` just past its `[`; PCRE's rules: `^` negates, a leading `]` is a member, `a-z` ranges
    /// (in order, between single characters), `[:name:]` POSIX classes, a hyphen before `]` literal.
    private mutating func characterClass() -> String? {
        // PCRE refuses a whole class that reads as [:name:], [.x.] or [=x=].
        if index < pattern.count, [":", ".", "="].contains(pattern[index]), posixEnd(at: index) != nil { return nil }
        var negated = false
        if index < pattern.count, pattern[index] == "^" {
            negated = true
            index += 1
        }
        var members = ""
        var first = true
        while true {
            guard index < pattern.count else { return nil }
            if pattern[index] == "]", !first {
                index += 1
                break
            }
            first = false
            guard let member = classMember() else { return nil }
            let startsRange = index + 1 < pattern.count && pattern[index] == "-" && pattern[index + 1] != "]"
            guard startsRange else {
                members += Self.icuInClass(member)
                continue
            }
            index += 1
            guard case .character(let low) = member, let end = classMember(), case .character(let high) = end,
                  low.value <= high.value else { return nil }
            members += Self.hex(low) + "-" + Self.hex(high)
        }
        return "[" + (negated ? "^" : "") + members + "]"
    }

    private mutating func classMember() -> Member? {
        let scalar = pattern[index]
        index += 1
        if scalar == "\\" { return escape() }
        guard scalar == "[", index < pattern.count, [":", ".", "="].contains(pattern[index]),
              let end = posixEnd(at: index) else { return .character(scalar) }
        // Collating elements ([.x.], [=x=]) are refused by PCRE.
        guard pattern[index] == ":" else { return nil }
        var name = String(String.UnicodeScalarView(pattern[(index + 1)..<end]))
        index = end + 2
        let negated = name.hasPrefix("^")
        if negated { name.removeFirst() }
        guard let set = Self.posixClasses[name] else { return nil }
        return .set("[" + (negated ? "^" : "") + set + "]")
    }

    /// PCRE's test for `[:…:]`: `start` is at the `:` (or `.`, `=`); the index of the closing `:` before `]`,
    /// or nil when a `]` or a nested opener comes first.
    private func posixEnd(at start: Int) -> Int? {
        let terminator = pattern[start]
        var position = start + 1
        while pattern.count - position >= 2 {
            let scalar = pattern[position], next = pattern[position + 1]
            if scalar == "\\" && (next == "]" || next == "\\") {
                position += 1
            } else if (scalar == "[" && next == terminator) || scalar == "]" {
                return nil
            } else if scalar == terminator && next == "]" {
                return position
            }
            position += 1
        }
        return nil
    }

    /// PCRE's POSIX classes without Unicode properties: ASCII only.
    private static let posixClasses: [String: String] = [
        "alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": #"\x{0}-\x{7F}"#, "blank": #"\x{9}\x{20}"#,
        "cntrl": #"\x{0}-\x{1F}\x{7F}"#, "digit": "0-9", "graph": #"\x{21}-\x{7E}"#, "print": #"\x{20}-\x{7E}"#,
        "punct": #"\x{21}-\x{2F}\x{3A}-\x{40}\x{5B}-\x{60}\x{7B}-\x{7E}"#, "space": #"\x{9}-\x{D}\x{20}"#,
        "word": "0-9A-Za-z_", "xdigit": "0-9A-Fa-f",
        // Caseless matching turns lower and upper into alpha.
        "lower": "A-Za-z", "upper": "A-Za-z",
    ]

    private static func hex(_ scalar: Unicode.Scalar) -> String {
        #"\x{"# + String(scalar.value, radix: 16, uppercase: true) + "}"
    }

    private static func icu(_ member: Member) -> String {
        switch member {
        case .character(let scalar): "[" + hex(scalar) + "]"
        case .set(let set): set
        }
    }

    private static func icuInClass(_ member: Member) -> String {
        switch member {
        case .character(let scalar): hex(scalar)
        case .set(let set): set
        }
    }
}
