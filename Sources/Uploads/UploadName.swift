import Foundation

/// Client-supplied file names made safe: a relative path of ordinary components, or a clear refusal.
public enum UploadName {
    public enum Problem: Error, CustomStringConvertible, Equatable {
        case empty, absolute, traversal, control, tooLong
        public var description: String {
            switch self {
            case .empty: "the file name is empty"
            case .absolute: "the file name is an absolute path; give a name or a relative path"
            case .traversal: "the file name climbs out of its folder (..)"
            case .control: "the file name holds NUL or control characters"
            case .tooLong: "the file name is too long (255 bytes per component, 4096 in all)"
            }
        }
    }

    /// `a/b/c.txt` stays a relative path (folder uploads); `\\` counts as a separator; `.` components are dropped;
    /// the result is Unicode NFC, so one name has one spelling on disk.
    public static func sanitize(_ raw: String) throws -> String {
        let text = raw.precomposedStringWithCanonicalMapping
        guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else { throw Problem.control }
        let unified = text.replacingOccurrences(of: "\\", with: "/")
        guard !unified.hasPrefix("/") else { throw Problem.absolute }
        if unified.count >= 2, unified.dropFirst().first == ":", unified.first?.isLetter == true { throw Problem.absolute }  // C:
        var parts: [String] = []
        for component in unified.split(separator: "/", omittingEmptySubsequences: true) {
            let part = component.trimmingCharacters(in: .whitespaces)
            if part == "." || part.isEmpty { continue }
            if part == ".." { throw Problem.traversal }
            guard part.utf8.count <= 255 else { throw Problem.tooLong }
            parts.append(part)
        }
        guard !parts.isEmpty else { throw Problem.empty }
        let joined = parts.joined(separator: "/")
        guard joined.utf8.count <= 4096 else { throw Problem.tooLong }
        return joined
    }
}
