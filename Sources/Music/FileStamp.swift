import Foundation

/// A file's size and modification time in milliseconds, as the library records them: what tells a cached frame index
/// (and a cached segmenter) from a stale one. One stat(2), no Foundation attribute dictionary: every segment request
/// takes one.
public struct FileStamp: Sendable, Equatable {
    public var size: Int64
    public var mtime: Int64

    public init(size: Int64, mtime: Int64) {
        self.size = size
        self.mtime = mtime
    }

    /// nil when the file cannot be stat'ed.
    public init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        size = Int64(info.st_size)
        // As Foundation's modification date (seconds plus nanoseconds as a Double), so the scan's stamps match.
        mtime = Int64(((Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1_000_000_000) * 1000).rounded())
    }

    /// The version string playlists carry.
    public var text: String { "\(size)-\(mtime)" }
}
