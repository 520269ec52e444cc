import Foundation

/// A compiled NSRegularExpression shared across threads: it is never mutated after init, and
/// NSRegularExpression matching is thread-safe, but Linux Foundation does not mark it Sendable.
final class MatcherRegex: @unchecked Sendable {
    private let regex: NSRegularExpression

    /// nil when ICU refuses the pattern.
    init?(_ pattern: String, options: NSRegularExpression.Options = [.caseInsensitive]) {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: options) else { return nil }
        self.regex = regex
    }

    /// The leftmost match in `text`.
    func firstMatch(in text: String) -> NSTextCheckingResult? {
        regex.firstMatch(in: text, options: [], range: NSRange(location: 0, length: text.utf16.count))
    }

    func matches(_ text: String) -> Bool {
        firstMatch(in: text) != nil
    }
}
