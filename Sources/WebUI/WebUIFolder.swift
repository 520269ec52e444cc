import HTTPKit
import Foundation

/// A WebUI folder read by qBittorrent's rules (`WebApplication::sendWebUIFile`): `public/` without a session,
/// `private/` then `public/` with one, `/` is `index.html`, `.`/`..` segments and backslashes are a bad request. An
/// alternative folder must hold regular files reached without symlinked folders; qbtd also refuses a symlinked file
/// that leads out of the folder. Reads block: call `read` off Swift's cooperative pool.
public struct WebUIFolder: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        case file(bytes: [UInt8], mediaType: String)
        case badRequest
        case notFound
        /// 500 with qBittorrent's reason.
        case unusable(String)
    }

    /// qBittorrent's `MAX_ALLOWED_FILESIZE`.
    public static let maxFileSize = 10 * 1024 * 1024
    public static let notRegular = "Unacceptable file type, only regular file is allowed."
    public static let symlinked = "Symlinks inside alternative UI folder are forbidden."
    public static let tooLarge = "File size exceeds limit (10 MiB)"
    /// Faults that stay until someone changes the folder (the others pass: a file being written, no descriptor free).
    public static let lasting: Set<String> = [notRegular, symlinked, tooLarge]

    public let root: String
    /// An alternative WebUI (the user's folder) rather than qbtd's own.
    public let alternative: Bool

    public init(root: String, alternative: Bool) {
        self.root = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
        self.alternative = alternative
    }

    /// The path's segments, `index.html` for `/`; nil for a path qBittorrent answers 400.
    public static func segments(_ path: String) -> [String]? {
        guard !path.contains("\\"), !path.contains("\0") else { return nil }
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard !parts.contains("."), !parts.contains("..") else { return nil }
        return path == "/" ? ["index.html"] : parts
    }

    public func read(_ path: String, session: Bool) -> Outcome {
        guard let parts = Self.segments(path) else { return .badRequest }
        guard !parts.isEmpty else { return alternative ? .unusable(Self.notRegular) : .notFound }
        let relative = parts.joined(separator: "/")
        var folder = session ? "private" : "public"
        if session, !Self.exists("\(root)/private/\(relative)") { folder = "public" }
        let file = "\(root)/\(folder)/\(relative)"
        if alternative, let problem = problem(file, folder: "\(root)/\(folder)") { return .unusable(problem) }
        return Self.load(file, confinedTo: alternative ? Self.realPath(root) : nil)
    }

    /// Why an alternative UI may not serve `file`: not a regular file, a symlinked folder on the way, or a symlink
    /// that leads out of the UI's folder.
    func problem(_ file: String, folder: String) -> String? {
        var info = stat()
        guard stat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return Self.notRegular }
        var directory = (file as NSString).deletingLastPathComponent
        while directory.count >= folder.count {
            var link = stat()
            if lstat(directory, &link) == 0, link.st_mode & S_IFMT == S_IFLNK { return Self.symlinked }
            directory = (directory as NSString).deletingLastPathComponent
        }
        var link = stat()
        if lstat(file, &link) == 0, link.st_mode & S_IFMT == S_IFLNK {
            guard let real = Self.realPath(file), let base = Self.realPath(root), real.hasPrefix(base + "/") else {
                return Self.symlinked
            }
        }
        return nil
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Reads the file; with `confinedTo`, what was opened (checked through the descriptor, so a file swapped for a
    /// symlink after the checks is caught) must lie inside that folder. O_NONBLOCK: a FIFO put there never blocks.
    static func load(_ file: String, confinedTo base: String? = nil) -> Outcome {
        let fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { return errno == ENOENT || errno == ENOTDIR ? .notFound : .unusable("Cannot read the file") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .unusable("Cannot read the file") }
        guard info.st_mode & S_IFMT == S_IFREG else { return base == nil ? .notFound : .unusable(notRegular) }
        if let base {
            guard let opened = realPath("/proc/self/fd/\(fd)"), opened.hasPrefix(base + "/") else { return .unusable(symlinked) }
        }
        guard info.st_size <= maxFileSize else { return .unusable(tooLarge) }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { break }
            done += n
        }
        guard done == bytes.count else { return .unusable("The file changed while it was read") }
        return .file(bytes: bytes, mediaType: MediaTypes.type(of: file))
    }
}
