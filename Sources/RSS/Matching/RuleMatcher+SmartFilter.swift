extension RuleMatcher {
    /// The smart filter's verdict (spec §8.5): nil to reject, else the ids to record. An episode seen before passes
    /// again only as a new REPACK/PROPER combination, when repacks are downloaded.
    static func smartFilterIDs(title: String, id: String, previouslyMatched: [String], downloadRepacks: Bool,
                               rejectUnrecognizedEpisodes: Bool) -> [String]? {
        guard !id.isEmpty else { return rejectUnrecognizedEpisodes ? nil : [] }
        guard previouslyMatched.contains(where: { $0.unicodeScalars.elementsEqual(id.unicodeScalars) }) else {
            return [id]
        }
        guard downloadRepacks else { return nil }
        let isRepack = containsIgnoringCase(title, "repack"), isProper = containsIgnoringCase(title, "proper")
        guard isRepack || isProper else { return nil }
        let full = id + (isRepack ? "-REPACK" : "") + (isProper ? "-PROPER" : "")
        guard !previouslyMatched.contains(where: { $0.unicodeScalars.elementsEqual(full.unicodeScalars) }) else {
            return nil
        }
        return isRepack && isProper ? [full, id + "-REPACK", id + "-PROPER"] : [full]
    }

    /// Substring search folding each character's case on its own (as Qt's case-insensitive `contains`);
    /// `word` is lowercase ASCII.
    private static func containsIgnoringCase(_ text: String, _ word: String) -> Bool {
        let folded = text.unicodeScalars.map { scalar -> Unicode.Scalar in
            let lower = scalar.properties.lowercaseMapping.unicodeScalars
            return lower.count == 1 ? lower.first! : scalar
        }
        let needle = Array(word.unicodeScalars)
        guard folded.count >= needle.count else { return false }
        return (0...(folded.count - needle.count)).contains { start in
            folded[start..<(start + needle.count)].elementsEqual(needle)
        }
    }
}
