/// A wildcard token as a regex (spec §8.3): first the PCRE pattern Qt's unanchored, non-path wildcard
/// conversion writes, then that pattern rewritten for ICU with PCRE's meaning.
enum WildcardPattern {
    /// The ICU pattern for one wildcard token; nil when PCRE would refuse Qt's pattern (e.g. an unterminated `[`).
    static func icuPattern(_ wildcard: String) -> String? {
        PCREPatternTranslator.icuPattern(qtPattern(wildcard))
    }

    /// Qt's conversion: `*` any run, `?` one character, `[...]`/`[!...]` copied as a class (a leading `]` kept
    /// as a member, backslashes doubled), regex metacharacters escaped, everything else as is.
    static func qtPattern(_ wildcard: String) -> [Unicode.Scalar] {
        let input = Array(wildcard.unicodeScalars)
        var output: [Unicode.Scalar] = []
        var index = 0
        while index < input.count {
            let scalar = input[index]
            index += 1
            switch scalar {
            case "*":
                output += #"[\d\D]*"#.unicodeScalars
            case "?":
                output += #"[\d\D]"#.unicodeScalars
            case "\\", "$", "(", ")", "+", ".", "^", "{", "|", "}":
                output += ["\\", scalar]
            case "[":
                output.append("[")
                guard index < input.count else { break }
                if input[index] == "!" {
                    output.append("^")
                    index += 1
                }
                if index < input.count, input[index] == "]" {
                    output.append("]")
                    index += 1
                }
                while index < input.count, input[index] != "]" {
                    if input[index] == "\\" { output.append("\\") }
                    output.append(input[index])
                    index += 1
                }
            default:
                output.append(scalar)
            }
        }
        return output
    }
}
