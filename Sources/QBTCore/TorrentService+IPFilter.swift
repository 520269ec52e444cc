import Foundation
import SystemKit
import TorrentEngine

/// qBittorrent's IP filter: the ranges of `ip_filter_path` while `ip_filter_enabled`, with `banned_IPs` on top,
/// handed to libtorrent as one filter (trackers too with `ip_filter_trackers`, an engine setting).
extension TorrentService {
    /// Rebuilds the filter; `reload` reads the file again (at start and when the path or the switch changed).
    /// A file that cannot be read is a logged error and the last good ranges stay in force.
    func applyIPFilter(reload: Bool) async {
        let enabled = settings[\.ipFilterEnabled]
        let path = settings[\.ipFilterPath]
        if enabled, reload {
            if path.isEmpty {
                log.add("IP filter is on but no filter file is set (ip_filter_path)", kind: .warning)
            } else {
                do {
                    let parsed = try await offPool { try IPFilterParser.parse(file: path) }
                    filterFileRules = parsed.rules
                    let skipped = parsed.skipped > 0 ? " (\(parsed.skipped) line(s) skipped)" : ""
                    log.add("Successfully parsed the provided IP filter: \(parsed.rules.count) rules were applied.\(skipped)", kind: .info)
                } catch {
                    let kept = filterFileRules.map { "; the previous filter (\($0.count) rules) stays in force" } ?? ""
                    log.add("Failed to parse the provided IP filter: \(error)\(kept)", kind: .critical)
                }
            }
        }
        var rules = enabled ? (filterFileRules ?? IPFilterRules()) : IPFilterRules()
        for ip in bannedIPs { rules.block(ip) }
        await engine.setIPFilter(rules)
    }
}
