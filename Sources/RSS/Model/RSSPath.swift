/// qBittorrent's RSS item paths: names joined by a backslash; the root folder is "".
public enum RSSPath {
    public static let separator: Character = "\\"

    /// One or more non-empty names separated by single backslashes (no leading, trailing or doubled one).
    public static func isValid(_ path: String) -> Bool {
        !path.isEmpty && path.split(separator: separator, omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty }
    }

    public static func name(_ path: String) -> String {
        guard let i = path.lastIndex(of: separator) else { return path }
        return String(path[path.index(after: i)...])
    }

    public static func parent(_ path: String) -> String {
        guard let i = path.lastIndex(of: separator) else { return "" }
        return String(path[..<i])
    }

    public static func join(_ parent: String, _ name: String) -> String { parent.isEmpty ? name : parent + "\\" + name }

    /// `path` is `folder` or lies under it ("" holds everything).
    public static func isWithin(_ path: String, _ folder: String) -> Bool {
        folder.isEmpty || path == folder || path.hasPrefix(folder + "\\")
    }
}
