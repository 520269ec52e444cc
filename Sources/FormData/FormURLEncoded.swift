import Foundation

/// `application/x-www-form-urlencoded`, for query strings and POST bodies alike.
public enum FormURLEncoded {
    /// Parses `a=1&b=2`; `+` is a space; malformed escapes are kept as written (qBittorrent is as lenient).
    public static func parse(_ text: Substring) -> [String: String] {
        var out: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = decode(parts[0])
            guard !key.isEmpty else { continue }
            out[key] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return out
    }

    public static func decode(_ s: Substring) -> String {
        let spaced = s.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
