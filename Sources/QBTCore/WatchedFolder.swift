import SystemKit
/// One of qBittorrent's watched folders (`scan_dirs`): a folder whose .torrent and .magnet files are added, and where
/// their torrents are saved: `0` the folder itself, `1` the default save path, or a path.
public struct WatchedFolder: Sendable, Equatable {
    public enum Target: Sendable, Equatable {
        case watchedFolder
        case defaultSavePath
        case path(String)
    }

    public var folder: String
    public var target: Target

    public init(folder: String, target: Target) {
        self.folder = folder
        self.target = target
    }

    /// `scan_dirs` as `app/setPreferences` takes it, checked: absolute folders (resolved, and inside the allowed
    /// folders when paths are confined), `0`, `1` or a save path (resolved the same way). The rest is left out, as
    /// qBittorrent leaves out what it cannot use; `rejected` says what and why.
    static func list(_ value: JSONValue?, paths: ServerPaths) -> (folders: [WatchedFolder], rejected: [String]) {
        guard case .object(let entries)? = value else { return ([], []) }
        var folders: [WatchedFolder] = [], rejected: [String] = []
        for (key, raw) in entries.sorted(by: { $0.key < $1.key }) {
            guard key.hasPrefix("/"), let folder = try? paths.savePath(key) else {
                rejected.append("\(key): a watched folder must be an absolute path qbtd may use")
                continue
            }
            let target: Target
            switch raw {
            case .int(0), .string("0"): target = .watchedFolder
            case .int(1), .string("1"): target = .defaultSavePath
            case .string(let path) where !path.isEmpty:
                guard let resolved = try? paths.savePath(path) else {
                    rejected.append("\(key): \(path) is not a save path qbtd may use")
                    continue
                }
                target = .path(resolved)
            default:
                rejected.append("\(key): the value must be 0, 1 or a save path")
                continue
            }
            if !folders.contains(where: { $0.folder == folder }) { folders.append(WatchedFolder(folder: folder, target: target)) }
        }
        return (folders, rejected)
    }

    /// `scan_dirs` as `app/preferences` reports it.
    static func json(_ folders: [WatchedFolder]) -> JSONValue {
        .object(Dictionary(uniqueKeysWithValues: folders.map { f in
            (f.folder, { switch f.target {
                case .watchedFolder: JSONValue.int(0)
                case .defaultSavePath: .int(1)
                case .path(let p): .string(p)
            } }())
        }))
    }
}
