import Foundation
import Store
import TorrentEngine

/// Categories and tags: kept in the store, mirrored here for `sync/maindata`.
extension TorrentService {
    public var categories: [Category] { categoryTable.values.sorted { $0.name < $1.name } }
    public var tags: [String] { tagSet.sorted() }

    /// qBittorrent's `Category::isValidName`: no leading/trailing `/`, no empty or `.`/`..` components.
    public static func validCategory(_ name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("/"), !name.hasSuffix("/"), !name.contains("\\") else { return false }
        return name.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }

    /// Where an automatically managed torrent of `category` goes: the category's path (relative ones under
    /// the default save path), else the default save path joined with the category name.
    func categorySavePath(_ category: String?) async -> String {
        let root = await settings.defaultSavePath
        guard let category, !category.isEmpty else { return root }
        let configured = categoryTable[category]?.savePath ?? ""
        let wanted = configured.isEmpty ? root + "/" + category : configured
        return (try? paths.savePath(wanted, relativeTo: root)) ?? root
    }

    /// Where a new torrent's data lives until it completes, as qBittorrent decides it: an automatic torrent's from its
    /// category, a manual one's from `downloadPath`/`useDownloadPath`, else the global temp path when it is on.
    func downloadPath(_ options: AddOptions, category: String?, autoTMM: Bool) async -> String? {
        if autoTMM { return await categoryDownloadPath(category) }
        let globalOn = await settings.bool("temp_path_enabled")
        let use = options.useDownloadPath ?? (options.downloadPath != nil || globalOn)
        guard use else { return nil }
        if let path = options.downloadPath { return path }
        return try? paths.savePath(await settings.string("temp_path"), relativeTo: await settings.defaultSavePath)
    }

    /// qBittorrent's `categoryDownloadPath`: the category's own download path (relative to the global temp path), none
    /// when the category turns it off, else the global temp path (with the category's folder) when that is on.
    func categoryDownloadPath(_ category: String?) async -> String? {
        let root = await settings.defaultSavePath
        let base = (try? paths.savePath(await settings.string("temp_path"), relativeTo: root)) ?? root
        let globalOn = await settings.bool("temp_path_enabled")
        guard let category, !category.isEmpty else { return globalOn ? base : nil }
        switch categoryTable[category]?.downloadPath {
        case nil: return globalOn ? (try? paths.savePath(base + "/" + category)) : nil
        case ""?: return nil
        case let path?: return try? paths.savePath(path, relativeTo: base)
        }
    }

    /// Whether a torrent in `category` (nil: none) takes its path from the default save path: no category, or one
    /// whose save path is empty or relative.
    func categoryFollowsDefaultPath(_ category: String?) -> Bool {
        guard let category, !category.isEmpty else { return true }
        return !(categoryTable[category]?.savePath ?? "").hasPrefix("/")
    }

    /// Every category's resolved save path (uploads can land in one).
    public func categorySavePaths() async -> [String: String] {
        var out: [String: String] = [:]
        for name in categoryTable.keys { out[name] = await categorySavePath(name) }
        return out
    }

    /// A category's path may be anywhere, as in qBittorrent, unless `--allowed-paths` confines it.
    private func checkCategoryPath(_ path: String) async throws {
        guard !path.isEmpty else { return }
        do { _ = try paths.savePath(path, relativeTo: await settings.defaultSavePath) } catch {
            throw ServiceError.conflict("\(error)")
        }
    }

    public func createCategory(_ category: Category) async throws {
        guard Self.validCategory(category.name) else { throw ServiceError.conflict("Incorrect category name") }
        try await checkCategoryPath(category.savePath)
        if let download = category.downloadPath { try await checkCategoryPath(download) }
        guard categoryTable[category.name] == nil, try await store.createCategory(category) else {
            throw ServiceError.conflict("Unable to create category")
        }
        categoryTable[category.name] = category
    }

    public func editCategory(_ category: Category) async throws {
        // qBittorrent refuses an edit that changes nothing as it refuses an unknown category.
        guard let current = categoryTable[category.name], current != category else { throw ServiceError.conflict("Unable to edit category") }
        try await checkCategoryPath(category.savePath)
        if let download = category.downloadPath { try await checkCategoryPath(download) }
        // qBittorrent's category_changed_tmm_enabled: move the category's automatic torrents, or (its default)
        // switch them to manual mode first, where they are.
        let follow = await settings.bool("category_changed_tmm_enabled")
        if !follow {
            for (id, stored) in torrents where stored.record.category == category.name && stored.record.autoTMM {
                try await update(id) { $0.autoTMM = false }
            }
        }
        try await store.editCategory(category)
        categoryTable[category.name] = category
        if follow {
            for (id, stored) in torrents where stored.record.category == category.name { try await relocateManaged(id) }
        }
    }

    public func removeCategories(_ names: [String]) async throws {
        try await store.removeCategories(names)
        for name in names {
            categoryTable[name] = nil
            for (id, stored) in torrents where stored.record.category == name { torrents[id]?.record.category = nil }
        }
    }

    /// "" clears the category; an unknown one is qBittorrent's 409.
    public func setCategory(_ ids: [TorrentID], _ name: String) async throws {
        if !name.isEmpty && categoryTable[name] == nil { throw ServiceError.conflict("Incorrect category name") }
        // qBittorrent's torrent_changed_tmm_enabled: an automatic torrent moves to its new category's path, or is
        // switched to manual mode first, where it is.
        let follow = await settings.bool("torrent_changed_tmm_enabled")
        let category = name.isEmpty ? nil : name
        for id in known(ids) where torrents[id]?.record.category != category {  // no change, nothing to do
            try await update(id) { record in
                if !follow { record.autoTMM = false }
                record.category = category
            }
            try await relocateManaged(id)
        }
    }

    // MARK: tags

    public func createTags(_ names: [String]) async throws {
        let valid = names.filter(Self.validTag).filter { !tagSet.contains($0) }
        guard !valid.isEmpty else { return }
        try await store.createTags(valid)
        tagSet.formUnion(valid)
    }

    public func addTags(_ ids: [TorrentID], _ names: [String]) async throws {
        let valid = names.filter(Self.validTag)
        let targets = known(ids)
        guard !valid.isEmpty, !targets.isEmpty else { return }
        try await store.addTags(valid, to: targets)
        tagSet.formUnion(valid)
        for id in targets {
            guard let current = torrents[id]?.tags else { continue }  // read before the write: exclusivity
            torrents[id]?.tags = Array(Set(current).union(valid)).sorted()
        }
    }

    /// nil removes every tag from the torrents.
    public func removeTags(_ ids: [TorrentID], _ names: [String]?) async throws {
        let targets = known(ids)
        guard !targets.isEmpty else { return }
        try await store.removeTags(names, from: targets)
        for id in targets {
            if let names { torrents[id]?.tags.removeAll { names.contains($0) } } else { torrents[id]?.tags = [] }
        }
    }

    /// `setTags` (5.1): the torrents end up with exactly these tags.
    public func setTags(_ ids: [TorrentID], _ names: [String]) async throws {
        let valid = Array(Set(names.filter(Self.validTag))).sorted()
        try await removeTags(ids, nil)
        try await addTags(ids, valid)
    }

    public func deleteTags(_ names: [String]) async throws {
        try await store.deleteTags(names)
        tagSet.subtract(names)
        for id in torrents.keys { torrents[id]?.tags.removeAll { names.contains($0) } }
    }
}
