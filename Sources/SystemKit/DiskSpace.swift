import Foundation

/// Free space as an unprivileged writer sees it (`f_bavail`): upload checks and `free_space_on_disk`.
public enum DiskSpace {
    public static func available(at path: String) -> Int64? {
        var stats = statvfs()
        guard statvfs(path, &stats) == 0 else { return nil }
        return Int64(stats.f_bavail) * Int64(stats.f_frsize)
    }
}
