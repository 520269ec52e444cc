import Foundation
import TorrentEngine

/// The options of `torrents/add` after parsing, shared by every source in one request.
public struct AddOptions: Sendable, Equatable {
    /// Where the data goes (manual mode); a relative path is resolved as qBittorrent does (`TorrentService.placement`).
    /// nil: the default (or the category's) save path.
    public var savePath: String?
    public var category: String?
    public var tags: [String] = []
    public var stopped = false
    public var skipChecking = false
    public var sequential = false
    public var firstLastPiecePrio = false
    public var rename: String?
    public var uploadLimit = 0
    public var downloadLimit = 0
    public var ratioLimit: Double = -2
    public var seedingTimeLimit = -2
    public var inactiveSeedingTimeLimit = -2
    /// nil = the `auto_tmm_enabled` preference.
    public var autoTMM: Bool?
    public var forced = false
    public var addToTopOfQueue = false
    /// nil = the `torrent_content_layout` preference.
    public var contentLayout: ContentLayout?
    /// Where the data lives until it completes (relative: resolved as `savePath`); nil: the global temp path when it
    /// is on.
    public var downloadPath: String?
    /// qBittorrent's `useDownloadPath`: false: none; nil: `downloadPath` if given, else `temp_path_enabled`.
    public var useDownloadPath: Bool?
    /// 5.x's share limit action for this torrent (`ShareLimitAction` names); nil or "Default": the global one.
    public var shareLimitAction: String?
    /// 5.3: "MatchAny" or "MatchAll"; anything else follows the global mode.
    public var shareLimitsMode: String?
    /// qBittorrent's stop condition ("None", "MetadataReceived", "FilesChecked"); nil: `torrent_stop_condition`.
    public var stopCondition: String?
    /// 5.2: one qBittorrent priority per file (0, 1, 6, 7; -1 leaves a file as it is), for a torrent with metadata.
    public var filePriorities: [Int]?

    public init() {}
}

/// qBittorrent's `TorrentContentLayout`: keep the torrent's folders, always have a top folder, or never.
public enum ContentLayout: String, Sendable, Equatable {
    case original = "Original", subfolder = "Subfolder", noSubfolder = "NoSubfolder"

    /// The top folder all files share, or "" (`Path::findRootFolder`).
    static func rootFolder(_ paths: [String]) -> String {
        var root: Substring?
        for path in paths {
            guard let slash = path.firstIndex(of: "/") else { return "" }
            let top = path[..<slash]
            if root == nil { root = top } else if root != top { return "" }
        }
        return root.map(String.init) ?? ""
    }

    /// The new path of each file, or nil when the layout leaves the files as they are (`applyContentLayout`).
    func paths(for files: [String], torrentName: String) -> [String]? {
        let root = Self.rootFolder(files)
        switch self {
        case .original: return nil
        case .noSubfolder where !root.isEmpty: return files.map { String($0.dropFirst(root.count + 1)) }
        case .subfolder where root.isEmpty && !files.isEmpty:
            let folder = files.count > 1 ? torrentName : (files[0] as NSString).deletingPathExtension
            return files.map { folder + "/" + $0 }
        default: return nil
        }
    }
}

public enum AddOutcome: Sendable, Equatable {
    case added(TorrentID)
    case duplicate(TorrentID)
    case invalid(String)
}
