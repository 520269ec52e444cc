import Foundation
import TorrentEngine

/// qBittorrent's excluded file names: at add (a magnet's when its metadata arrives), a file whose name, or the name
/// of a folder on its path, matches one of the wildcard lines (`*`, `?`, `[…]`, any case) is not downloaded.
extension TorrentService {
    func applyExcludedFileNames(_ id: TorrentID) async {
        guard settings[\.excludedFileNamesEnabled] else { return }
        let patterns = Self.exclusionPatterns(settings[\.excludedFileNames])
        guard !patterns.isEmpty, let files = try? await engine.files(id), !files.isEmpty else { return }
        let excluded = files.indices.filter { files[$0].priority > 0 && Self.isExcluded(files[$0].path, by: patterns) }
        guard !excluded.isEmpty else { return }
        do { try await setFilePriority(id, files: excluded, priority: 0) } catch {
            log.add("Could not skip the excluded files of torrent \(id): \(error)", kind: .warning)
        }
    }

    /// 5.2's `filePriorities` at add: one priority per file, grouped into one call per priority.
    func applyFilePriorities(_ id: TorrentID, _ priorities: [Int]) async {
        let groups = Dictionary(grouping: priorities.indices.filter { priorities[$0] >= 0 }) { priorities[$0] }
        for (priority, files) in groups where priority != 1 {
            do { try await setFilePriority(id, files: files, priority: priority) } catch {
                log.add("Could not set the file priorities of torrent \(id): \(error)", kind: .warning)
            }
        }
    }

    /// One anchored, case-insensitive pattern per line (qBittorrent splits on newlines and trims nothing).
    static func exclusionPatterns(_ text: String) -> [NSRegularExpression] {
        text.split(whereSeparator: \.isNewline).compactMap { line in
            var regex = "^"
            var inClass = false
            for c in line {
                switch c {
                case "*" where !inClass: regex += "[^/]*"
                case "?" where !inClass: regex += "[^/]"
                case "[" where !inClass: regex += "["; inClass = true
                case "]" where inClass: regex += "]"; inClass = false
                case "!" where inClass && regex.hasSuffix("["): regex += "^"
                default: regex += NSRegularExpression.escapedPattern(for: String(c))
                }
            }
            guard !inClass else { return nil }
            return try? NSRegularExpression(pattern: regex + "$", options: [.caseInsensitive])
        }
    }

    /// The file's name, then each folder up its path, against every pattern.
    static func isExcluded(_ path: String, by patterns: [NSRegularExpression]) -> Bool {
        path.split(separator: "/").contains { component in
            let name = String(component)
            let range = NSRange(name.startIndex..., in: name)
            return patterns.contains { $0.firstMatch(in: name, range: range) != nil }
        }
    }
}
