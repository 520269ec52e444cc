import Foundation
import SystemKit

/// Where an upload may land: the uploads folder, a category's save path, or a `path` (relative ones under the
/// uploads folder or the category's path); under `--allowed-paths` it must stay inside the allowed folders after
/// `..` and symlinks are resolved.
public struct Destinations: Sendable {
    public let configuration: UploadConfiguration
    /// The categories' save paths when the request came in (absolute).
    let categories: [String: String]

    public init(configuration: UploadConfiguration, categories: [String: String]) {
        self.configuration = configuration
        self.categories = categories
    }

    public func resolve(path: String?, category: String?) throws -> String {
        var chosen = configuration.uploadsDirectory
        if let category, !category.isEmpty {
            guard let savePath = categories[category] else { throw UploadError.notFound("no category \"\(category)\"") }
            chosen = savePath
        }
        if let path, !path.trimmingCharacters(in: .whitespaces).isEmpty {
            guard !path.contains("\0") else { throw UploadError.badName(.control) }
            chosen = path.hasPrefix("/") ? path : chosen + "/" + path
        }
        // What no file system takes: a name over 255 bytes, or a folder path that leaves no room for a file name in
        // Linux's 4,096 (the client's to fix, not a server error).
        if chosen.utf8.count > 3839 || chosen.split(separator: "/").contains(where: { $0.utf8.count > 255 }) {
            throw UploadError.badRequest("the path is too long (a folder name has at most 255 bytes, a folder path 3,839)")
        }
        let resolved = ServerPaths.canonical(chosen)  // `..` and symlinks resolved: a symlink cannot lead outside
        if let roots = configuration.confinement, !ServerPaths.isInside(resolved, roots) {
            throw UploadError.outsideRoots(path ?? chosen, roots: roots)
        }
        do {
            try FileManager.default.createDirectory(atPath: resolved, withIntermediateDirectories: true)
        } catch {
            // A file in the way, a folder qbtd may not write: the path is unusable, as qBittorrent's 409 says.
            throw UploadError.conflict("cannot create the folder \(resolved): \(error.localizedDescription)")
        }
        return resolved
    }
}
