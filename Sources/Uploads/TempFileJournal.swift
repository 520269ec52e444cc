import Foundation

/// The temp files uploads are creating, wherever they are (beside a destination a `path` or a category chose, which
/// can be anywhere): one note per file in `<uploads>/.pending`, written before the temp file is created and removed
/// once the file is in place, removed, or owned by a tus upload's record. The first start after a crash removes every
/// temp file still noted, before any upload can begin. (A note is not fsynced: a SIGKILL loses nothing written, a power
/// cut may lose a note and leave its temp file.)
public struct TempFileJournal: Sendable {
    public let folder: String

    public init(uploadsDirectory: String) { folder = uploadsDirectory + "/.pending" }

    /// Notes `path` (a temp file about to be created); the note is what `forget` takes.
    public func note(_ path: String) throws -> String {
        let entry = folder + "/" + UUID().uuidString
        for attempt in 0..<2 {
            let fd = open(entry, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 {
                defer { close(fd) }
                let written = path.utf8CString.withUnsafeBytes { write(fd, $0.baseAddress, $0.count - 1) }
                guard written == path.utf8.count else { unlink(entry); throw UploadError.io("cannot note a temp file in \(folder)") }
                return entry
            }
            guard errno == ENOENT, attempt == 0 else { break }
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        throw UploadError.io("cannot note a temp file in \(folder): \(String(cString: strerror(errno)))")
    }

    public func forget(_ entry: String) { unlink(entry) }

    /// Removes every noted temp file but those in `live` (tus data files with a record), and the notes. Only files
    /// with qbtd's temp-file names are ever removed, whatever a note says.
    public func sweep(keeping live: Set<String>) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            let entry = folder + "/" + name
            if let data = FileManager.default.contents(atPath: entry) {
                let path = String(decoding: data, as: UTF8.self)
                if !live.contains(path), Self.isTempFile(path) { unlink(path) }
            }
            unlink(entry)
        }
    }

    static func isTempFile(_ path: String) -> Bool {
        let name = (path as NSString).lastPathComponent
        return name.hasSuffix(".part") && (name.hasPrefix(FileSink.tempPrefix) || name.hasPrefix(TusService.dataPrefix))
    }
}
