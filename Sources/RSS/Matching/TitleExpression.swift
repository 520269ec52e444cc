/// One mustContain/mustNotContain expression, compiled (spec §8.3).
enum TitleExpression: Sendable {
    /// The empty expression (and, in wildcard mode, whitespace alone): matches every title.
    case everything
    /// A regex; nil when the pattern is invalid, which matches nothing.
    case regex(MatcherRegex?)
    /// Wildcard tokens, all of which must match; a nil token (invalid) matches nothing.
    case wildcards([MatcherRegex?])

    init(_ expression: String, useRegex: Bool) {
        if expression.isEmpty {
            self = .everything
        } else if useRegex {
            self = .regex(MatcherRegex(expression))
        } else {
            let tokens = expression.unicodeScalars.split(whereSeparator: Self.isPCRESpace)
            self = tokens.isEmpty ? .everything : .wildcards(tokens.map { token in
                WildcardPattern.icuPattern(String(String.UnicodeScalarView(token))).flatMap { MatcherRegex($0) }
            })
        }
    }

    /// Case-insensitive, unanchored.
    func matches(_ title: String) -> Bool {
        switch self {
        case .everything: true
        case .regex(let regex): regex?.matches(title) ?? false
        case .wildcards(let tokens): tokens.allSatisfy { $0?.matches(title) ?? false }
        }
    }

    /// PCRE's `\s` without Unicode properties: tab, line feed, vertical tab, form feed, carriage return, space.
    private static func isPCRESpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || (0x09...0x0D).contains(scalar.value)
    }
}
