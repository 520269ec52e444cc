import Foundation
import Glibc
import SystemKit

/// Stops a write when free space falls under the margin; looked at every few MiB, not every chunk.
public struct SpaceGuard: Sendable {
    public let path: String
    public let margin: Int64
    private var unchecked: Int64 = 0
    static let interval: Int64 = 8 << 20

    public init(path: String, margin: Int64) { self.path = path; self.margin = margin }

    public mutating func wrote(_ count: Int) throws {
        unchecked += Int64(count)
        guard unchecked >= Self.interval else { return }
        unchecked = 0
        try check()
    }

    /// The error for a write the disk refused (ENOSPC, EDQUOT), with the free space as it is now.
    public func diskFull() -> UploadError {
        let available = DiskSpace.available(at: path) ?? 0
        return available > margin ? .diskRefused(available: available) : .diskFull(available: available, margin: margin)
    }

    public func check(needing bytes: Int64 = 0) throws {
        guard let free = DiskSpace.available(at: path) else { return }
        if free - bytes < margin { throw UploadError.diskFull(available: free, margin: margin) }
    }
}

/// One file being received: a hidden temp file beside its final place, hashed as it is written, fsynced and then
/// linked into place. Anything not committed — a disconnect, a failed write, a refusal — is removed, with the
/// folders made for it.
public final class FileSink {
    public let directory: String
    public let name: String
    public private(set) var size: Int64 = 0
    /// Temp files are hidden, named so a start after a crash can find them.
    static let tempPrefix = ".qbtd-upload-"
    public var sha256: String { digest.hex }
    let tempPath: String
    private let journal: TempFileJournal?
    private var note: String?
    private var fd: Int32
    private let digest = RunningDigest("sha256")!
    private var writer: BackgroundWriter!
    private var space: SpaceGuard
    private var madeDirectories: [String] = []
    private var finished = false

    /// `journal`: where the temp file is noted while it exists, so a crash does not leave it behind for good.
    public init(directory: String, name: String, margin: Int64, journal: TempFileJournal?) throws {
        self.directory = directory
        self.name = name
        self.journal = journal
        // The whole path (and the temp name beside it) must fit Linux's 4,096 bytes: a name that does not is the
        // client's to shorten, not a server error.
        guard directory.utf8.count + name.utf8.count + 64 < 4096 else {
            throw UploadError.badRequest("the file's path would be longer than 4,096 bytes: shorten its name or folders")
        }
        let parent = ((directory + "/" + name) as NSString).deletingLastPathComponent
        madeDirectories = try Self.makeParent(parent, inside: directory)
        space = SpaceGuard(path: parent, margin: margin)
        tempPath = parent + "/" + Self.tempPrefix + UUID().uuidString + ".part"
        do { note = try journal?.note(tempPath) } catch { Self.removeDirectories(madeDirectories); throw error }
        fd = open(tempPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let code = errno, reason = String(cString: strerror(code))
            if let note { journal?.forget(note) }
            Self.removeDirectories(madeDirectories)
            // A folder qbtd may not write or a file in the way is the path's fault (409); a failing disk is ours.
            if [EACCES, EPERM, ENOTDIR, EEXIST, EROFS, ENAMETOOLONG].contains(code) {
                throw UploadError.conflict("cannot create a file in \(parent): \(reason)")
            }
            throw UploadError.io("cannot create a file in \(parent): \(reason)")
        }
        writer = BackgroundWriter(fd: fd, position: 0, digests: [digest])
    }

    deinit { if !finished { abort() } }

    /// Waits (off the thread) until `count` bytes can be written without blocking.
    public func ready(for count: Int) async { await writer?.ready(for: count) }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard !bytes.isEmpty else { return }
        do { try writer.write(bytes) } catch UploadError.diskFull { throw space.diskFull() }
        size += Int64(bytes.count)
        try space.wrote(bytes.count)
    }

    /// Makes the bytes durable and closes the file; `place` then puts it where it belongs.
    public func seal() throws {
        guard fd >= 0 else { return }
        do { try writer.drain() } catch UploadError.diskFull { throw space.diskFull() }
        writer = nil  // its thread and buffer go now, not when the whole form has arrived
        guard fsync(fd) == 0 else { throw UploadError.io("fsync: \(String(cString: strerror(errno)))") }
        close(fd)
        fd = -1
    }

    /// Into place: `name`, or `name (1).ext`… when it exists, unless `overwrite`. Returns the path.
    public func place(overwrite: Bool) throws -> String {
        try seal()
        let placed = try Self.place(tempPath, at: directory + "/" + name, overwrite: overwrite, onFailure: abort)
        if let note { journal?.forget(note) }
        finished = true
        return placed
    }

    static func place(_ tempPath: String, at target: String, overwrite: Bool, onFailure: () -> Void) throws -> String {
        var placed: String?
        if overwrite {
            if rename(tempPath, target) == 0 { placed = target }
        } else {
            for candidate in Self.candidates(target) {
                if Glibc.link(tempPath, candidate) == 0 { placed = candidate; unlink(tempPath); break }
                if errno != EEXIST { break }
            }
        }
        guard let placed else {
            let reason = String(cString: strerror(errno))
            onFailure()
            throw UploadError.io("cannot put the file in place at \(target): \(reason)")
        }
        syncDirectory((placed as NSString).deletingLastPathComponent)
        return placed
    }

    /// A second name for `tempPath`: `target`, or `name (1).ext`… when it exists; a candidate that already is the
    /// same file (an earlier link a crash interrupted) is taken again. The temp name stays. Returns the path.
    static func link(_ tempPath: String, at target: String) throws -> String {
        var source = stat()
        guard stat(tempPath, &source) == 0 else {
            throw UploadError.io("cannot put the file in place at \(target): \(String(cString: strerror(errno)))")
        }
        for candidate in candidates(target) {
            if Glibc.link(tempPath, candidate) == 0 { syncDirectory((candidate as NSString).deletingLastPathComponent); return candidate }
            guard errno == EEXIST else { break }
            var existing = stat()
            if stat(candidate, &existing) == 0, existing.st_ino == source.st_ino, existing.st_dev == source.st_dev {
                return candidate
            }
        }
        throw UploadError.io("cannot put the file in place at \(target): \(String(cString: strerror(errno)))")
    }

    /// Removes the temp file and the folders made for it.
    public func abort() {
        try? writer?.drain()  // the writer thread must be done with the descriptor before it closes
        if fd >= 0 { close(fd); fd = -1 }
        unlink(tempPath)
        if let note { journal?.forget(note) }
        Self.removeDirectories(madeDirectories)
        finished = true
    }

    /// `a.txt`, `a (1).txt`, `a (2).txt`, … (bounded), made as they are tried.
    static func candidates(_ path: String) -> some Sequence<String> {
        let url = URL(fileURLWithPath: path)
        let ext = url.pathExtension
        let stem = url.deletingPathExtension().path
        return (0...9999).lazy.map { $0 == 0 ? path : "\(stem) (\($0))" + (ext.isEmpty ? "" : ".\(ext)") }
    }

    /// Makes the folders a name's own sub-folders need (`a/b/c.txt`) and returns those it made. A folder that is
    /// already there must not lead out of `directory` (a symlink inside the uploads folder could): checked before
    /// anything is made, since `mkdir` would follow it too.
    static func makeParent(_ parent: String, inside directory: String) throws -> [String] {
        var missing: [String] = []
        var probe = parent
        while !FileManager.default.fileExists(atPath: probe), probe.count > directory.count {
            missing.insert(probe, at: 0)
            probe = (probe as NSString).deletingLastPathComponent
        }
        guard ServerPaths.isInside(ServerPaths.canonical(probe), [ServerPaths.canonical(directory)]) else {
            throw UploadError.escapes(parent)
        }
        var made: [String] = []
        for dir in missing {
            guard mkdir(dir, 0o755) == 0 || errno == EEXIST else {
                let code = errno, reason = String(cString: strerror(code))
                removeDirectories(made)
                if [EACCES, EPERM, ENOTDIR, EROFS, ENAMETOOLONG].contains(code) {
                    throw UploadError.conflict("cannot create the folder \(dir): \(reason)")
                }
                throw UploadError.io("cannot create \(dir): \(reason)")
            }
            made.append(dir)
        }
        return made
    }

    static func removeDirectories(_ dirs: [String]) {
        for dir in dirs.reversed() { rmdir(dir) }  // only empty ones go
    }

    /// The rename is durable only once its directory is.
    static func syncDirectory(_ path: String) {
        let dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 { fsync(dfd); close(dfd) }
    }
}
