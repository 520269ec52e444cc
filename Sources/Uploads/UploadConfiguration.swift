import Foundation

/// Where uploads may go and the limits they keep.
public struct UploadConfiguration: Sendable {
    /// Where uploads land by default; tus keeps partial uploads under `.tus` in it.
    public var uploadsDirectory: String
    /// Folders a `path` may point into under `--allowed-paths`; nil: anywhere, as qBittorrent's save paths.
    public var confinement: [String]?
    /// Free space that must remain after an upload.
    public var margin: Int64 = 200 << 20
    /// The largest single upload; nil for no limit but free space.
    public var maxUploadSize: Int64?
    /// How long an unfinished tus upload lives after its last write.
    public var tusExpiry: TimeInterval = 24 * 3600
    /// tus uploads unfinished at once (each holds a file until it finishes or expires).
    public var maxTusUploadsInProgress = 1000

    /// Where the temp files being written are noted, for the start after a crash.
    public var journal: TempFileJournal { TempFileJournal(uploadsDirectory: uploadsDirectory) }

    public init(uploadsDirectory: String, confinement: [String]?) {
        self.uploadsDirectory = uploadsDirectory
        self.confinement = confinement
    }

    /// The free-space and size check, before a byte is read.
    public func preflight(bytes: Int64, at directory: String) throws {
        if let maxUploadSize, bytes > maxUploadSize { throw UploadError.tooLarge(limit: maxUploadSize) }
        try SpaceGuard(path: directory, margin: margin).check(needing: bytes)
    }
}
