import Foundation
import QBTCore

/// Where an upload may land: the uploads folder, a category's save path, or a `path` (relative ones under the
/// uploads folder or the category's path); under `--allowed-paths` it must stay inside the allowed folders after
/// `..` and symlinks are resolved.
public struct Destinations: Sendable {
    public let configuration: UploadConfiguration
    /// The categories' save paths when the request came in (absolute).
    let categories: [String: String]

    /// With the categories' save paths as they are now.
    public static func current(_ configuration: UploadConfiguration, _ service: TorrentService) async -> Destinations {
        Destinations(configuration: configuration, categories: await service.categorySavePaths())
    }

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
        let resolved = ServerPaths.canonical(chosen)  // `..` and symlinks resolved: a symlink cannot lead outside
        if let roots = configuration.confinement, !ServerPaths.isInside(resolved, roots) {
            throw UploadError.outsideRoots(path ?? chosen, roots: roots)
        }
        do {
            try FileManager.default.createDirectory(atPath: resolved, withIntermediateDirectories: true)
        } catch {
            throw UploadError.io("cannot create \(resolved): \(error.localizedDescription)")
        }
        return resolved
    }
}
