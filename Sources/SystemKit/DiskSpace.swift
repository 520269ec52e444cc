import Foundation

/// Free space as an unprivileged writer sees it (`f_bavail`): upload checks and `free_space_on_disk`.
public enum DiskSpace {
    public static func available(at path: String) -> Int64? {
        var stats = statvfs()
        guard statvfs(path, &stats) == 0 else { return nil }
        return Int64(stats.f_bavail) * Int64(stats.f_frsize)
    }

    /// The free space of the filesystem `path` is on, or will be on once made: its nearest ancestor that exists
    /// (a save path libtorrent has not created yet). nil when even `/` cannot be read.
    public static func availableWhere(_ path: String) -> Int64? {
        var probe = path.isEmpty ? "/" : path
        for _ in 0..<256 {  // bounded: a path has far fewer components
            if let free = available(at: probe) { return free }
            guard errno == ENOENT || errno == ENOTDIR, probe != "/" else { return nil }
            probe = (probe as NSString).deletingLastPathComponent
            if probe.isEmpty { probe = "/" }
        }
        return nil
    }
}
