import Foundation

/// Free space as an unprivileged writer sees it (`f_bavail`), for the preflight and the running check.
public enum DiskSpace {
    public static func available(at path: String) -> Int64? {
        var stats = statvfs()
        guard statvfs(path, &stats) == 0 else { return nil }
        return Int64(stats.f_bavail) * Int64(stats.f_frsize)
    }
}
