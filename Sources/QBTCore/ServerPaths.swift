import Foundation

/// The directories qbtd owns. Every path a client names is resolved against them and refused if it escapes.
public struct ServerPaths: Sendable {
    public let dataDirectory: String
    public let downloadRoot: String
    /// Where uploads land by default; torrents made from uploads seed from here, so it is a save root too.
    public let uploadsDirectory: String
    public var databasePath: String { dataDirectory + "/qbtd.sqlite" }
    /// Every folder a save path may lie in.
    public var roots: [String] { [downloadRoot, uploadsDirectory] }

    public init(dataDirectory: String, downloadRoot: String? = nil, uploadsDirectory: String? = nil) throws {
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
    }

    public enum PathError: Error, Equatable, CustomStringConvertible {
        case outsideRoot(String, root: String)
        public var description: String {
            switch self {
            case .outsideRoot(let path, let root): "save path \(path) is outside the download directory \(root)"
            }
        }
    }

    /// Resolves a client-supplied save path: relative ones are taken under the download root, and the result
    /// (after `..` and symlinks) must stay inside the download root or the uploads folder.
    public func savePath(_ requested: String?) throws -> String {
        guard let requested, !requested.trimmingCharacters(in: .whitespaces).isEmpty else { return downloadRoot }
        let absolute = requested.hasPrefix("/") ? requested : downloadRoot + "/" + requested
        let resolved = Self.canonical(absolute)
        guard Self.isInside(resolved, roots) else {
            throw PathError.outsideRoot(requested, root: downloadRoot)
        }
        return resolved
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
