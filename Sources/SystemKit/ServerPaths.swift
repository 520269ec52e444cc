import Foundation

/// The directories qbtd owns, and where a path a client names may lead. By default, as in qBittorrent, any absolute
/// path is accepted; with `--allowed-paths` every path is resolved (`..` and symlinks) and refused if it leaves
/// those folders (qbtd's own download and uploads folders are always among them).
public struct ServerPaths: Sendable {
    public let dataDirectory: String
    public let downloadRoot: String
    /// Where uploads land by default; torrents made from uploads seed from here, so it is a save root too.
    public let uploadsDirectory: String
    /// The folders every path must stay in; nil when paths are not confined.
    public let confinement: [String]?
    public var databasePath: String { dataDirectory + "/qbtd.sqlite" }

    public init(dataDirectory: String, downloadRoot: String? = nil, uploadsDirectory: String? = nil,
                allowedPaths: [String]? = nil) throws {
        let data = Self.canonical(dataDirectory)
        let downloads = Self.canonical(downloadRoot ?? data + "/downloads")
        let uploads = Self.canonical(uploadsDirectory ?? data + "/uploads")
        for dir in [data, downloads, uploads] {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
        // Canonicalize again now that they exist, so symlinked parents compare equal later.
        self.dataDirectory = Self.canonical(data)
        self.downloadRoot = Self.canonical(downloads)
        self.uploadsDirectory = Self.canonical(uploads)
        if let allowedPaths {
            var roots = [self.downloadRoot, self.uploadsDirectory]
            for dir in allowedPaths.map(Self.canonical) where !roots.contains(dir) { roots.append(dir) }
            confinement = roots
        } else {
            confinement = nil
        }
    }

    public enum PathError: Error, Equatable, CustomStringConvertible {
        case outsideRoots(String, roots: [String])
        case invalid(String)
        public var description: String {
            switch self {
            case .outsideRoots(let path, let roots):
                "\(path) is outside the folders qbtd may use (\(roots.joined(separator: ", "))); start qbtd with a wider --allowed-paths to use it"
            case .invalid(let path): "\(path.debugDescription) is not a valid path"
            }
        }
    }

    /// Resolves a client-supplied path: a relative one is taken under `base` (the default save path where a
    /// client names a save path), `..` and symlinks are resolved, and under `--allowed-paths` the result must
    /// stay inside the allowed folders. Blank is `base`.
    public func savePath(_ requested: String?, relativeTo base: String? = nil) throws -> String {
        let base = base ?? downloadRoot
        guard let requested, !requested.trimmingCharacters(in: .whitespaces).isEmpty else { return base }
        guard !requested.contains("\0") else { throw PathError.invalid(requested) }
        let absolute = requested.hasPrefix("/") ? requested : base + "/" + requested
        let resolved = Self.canonical(absolute)
        guard permits(resolved) else { throw PathError.outsideRoots(requested, roots: confinement ?? []) }
        return resolved
    }

    /// Whether a canonical path may be used.
    public func permits(_ resolved: String) -> Bool {
        guard let confinement else { return true }
        return Self.isInside(resolved, confinement)
    }

    /// Whether a canonical path is one of the roots or lies under one.
    public static func isInside(_ resolved: String, _ roots: [String]) -> Bool {
        roots.contains { resolved == $0 || resolved.hasPrefix($0 + "/") }
    }

    /// Absolute, `..`-free, with the symlinks of its existing part resolved.
    public static func canonical(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var url = URL(fileURLWithPath: absolute).standardizedFileURL
        var tail: [String] = []
        while !FileManager.default.fileExists(atPath: url.path) && url.path != "/" {
            tail.insert(url.lastPathComponent, at: 0)
            url.deleteLastPathComponent()
        }
        var result = url.resolvingSymlinksInPath()
        for part in tail { result.appendPathComponent(part) }
        let out = result.path
        return out.count > 1 && out.hasSuffix("/") ? String(out.dropLast()) : out
    }
}
