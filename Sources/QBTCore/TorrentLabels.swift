import Store
import TorrentEngine

/// Categories and tags (`torrents/categories`, `createCategory`, `addTags`, …): the facade the HTTP layer calls.
public struct TorrentLabels: Sendable {
    let service: TorrentService

    public var categories: [Category] { get async { await service.categories } }

    public var tags: [String] { get async { await service.tags } }

    /// qBittorrent's `Category::isValidName`: no leading/trailing `/`, no empty or `.`/`..` components.
    public static func validCategory(_ name: String) -> Bool { TorrentService.validCategory(name) }

    /// qBittorrent's `use_subcategories`: `A/B` is a subcategory of `A` (its parents exist, its implicit paths sit
    /// under theirs, and `A` filters and removes with it).
    public var subcategoriesEnabled: Bool { service.subcategoriesEnabled }

    /// Every category's resolved save path (uploads can land in one).
    public func categorySavePaths() async -> [String: String] { await service.categorySavePaths() }

    public func createCategory(_ category: Category) async throws { try await service.createCategory(category) }

    public func editCategory(_ category: Category) async throws { try await service.editCategory(category) }

    /// With subcategories, removing `A` removes `A/…` too; the torrents in them become uncategorized.
    public func removeCategories(_ names: [String], toParent: Bool = false) async throws {
        try await service.removeCategories(names, toParent: toParent)
    }

    /// "" clears the category; an unknown one is qBittorrent's 409.
    public func setCategory(_ ids: [TorrentID], _ name: String) async throws {
        try await service.setCategory(ids, name)
    }

    public func createTags(_ names: [String]) async throws { try await service.createTags(names) }

    public func addTags(_ ids: [TorrentID], _ names: [String]) async throws { try await service.addTags(ids, names) }

    /// nil removes every tag from the torrents.
    public func removeTags(_ ids: [TorrentID], _ names: [String]?) async throws {
        try await service.removeTags(ids, names)
    }

    /// `setTags` (5.1): the torrents end up with exactly these tags.
    public func setTags(_ ids: [TorrentID], _ names: [String]) async throws { try await service.setTags(ids, names) }

    public func deleteTags(_ names: [String]) async throws { try await service.deleteTags(names) }
}

extension TorrentService {
    public nonisolated var labels: TorrentLabels { TorrentLabels(service: self) }
}
