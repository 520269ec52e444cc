import Foundation
import QBTCore

/// Where an upload may land: the uploads folder, a category's save path, or a `path` inside one of the roots
/// (after `..` and symlinks are resolved). Nothing else.
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
        let resolved = ServerPaths.canonical(chosen)  // `..` and symlinks resolved: a symlink cannot lead outside
        guard configuration.roots.contains(where: { resolved == $0 || resolved.hasPrefix($0 + "/") }) else {
            throw UploadError.outsideRoots(path ?? chosen)
        }
        do {
            try FileManager.default.createDirectory(atPath: resolved, withIntermediateDirectories: true)
        } catch {
            throw UploadError.io("cannot create \(resolved): \(error.localizedDescription)")
        }
        return resolved
    }

    /// The free-space and size preflight, before a byte is read.
    public func preflight(bytes: Int64, at directory: String) throws {
        if let limit = configuration.maxUploadSize, bytes > limit { throw UploadError.tooLarge(limit: limit) }
        try SpaceGuard(path: directory, margin: configuration.margin).check(needing: bytes)
    }
}
