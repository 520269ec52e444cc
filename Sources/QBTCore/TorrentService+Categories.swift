import Foundation
import Store
import TorrentEngine

/// Categories and tags: kept in the store, mirrored here for `sync/maindata`.
extension TorrentService {
    var categories: [Category] { categoryTable.values.sorted { $0.name < $1.name } }
    var tags: [String] { tagSet.sorted() }

    /// Another node of the cluster changed the categories or tags: read them again from the store (what this node
    /// holds stays as it was when the store does not answer; the caller tries again).
    public func reloadLabels() async throws {
        var read: (categories: [Category], tags: [String])?
        for _ in 0..<5 {  // bounded: this node changing its labels the whole time; its changes' notifications read again
            let before = labelsRevision
            let categories = try await store.categories(), tags = try await store.tags()
            if labelsRevision == before { read = (categories, tags); break }  // else this node changed them meanwhile
        }
        guard let (categories, tags) = read else { return }
        categoryTable = Dictionary(categories.map { ($0.name, $0) }, uniquingKeysWith: { $1 })
        if subcategoriesEnabled { await expandCategories() }
        tagSet = Set(tags)
        // A category or tag another node removed is gone from this node's torrents too (the catalogue cleared it
        // from their rows; this node's copies in memory follow).
        for (id, stored) in torrents where stored.record.category.map({ categoryTable[$0] == nil }) ?? false {
            torrents[id]?.record.category = nil
        }
        for (id, stored) in torrents where stored.tags.contains(where: { !tagSet.contains($0) }) {
            torrents[id]?.tags.removeAll { !tagSet.contains($0) }
        }
    }

    /// qBittorrent's `Category::isValidName`: no leading/trailing `/`, no empty or `.`/`..` components.
    static func validCategory(_ name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("/"), !name.hasSuffix("/"), !name.contains("\\") else { return false }
        return name.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }

    /// qBittorrent's `use_subcategories`: `A/B` is a subcategory of `A` (its parents exist, its implicit paths sit
    /// under theirs, and `A` filters and removes with it).
    nonisolated var subcategoriesEnabled: Bool { settings[\.useSubcategories] }

    /// `A/B/C` → `A/B`; a top-level category's parent is "".
    static func parentCategory(_ name: String) -> String {
        name.lastIndex(of: "/").map { String(name[..<$0]) } ?? ""
    }

    static func lastSegment(_ name: String) -> String {
        name.lastIndex(of: "/").map { String(name[name.index(after: $0)...]) } ?? name
    }

    /// qBittorrent's `Utils::Fs::toValidPath`: each run of `:?"*<>|` becomes one space.
    static func validPathName(_ name: String) -> String { spacingOut(":?\"*<>|", in: name) }

    /// qBittorrent's `categorySavePath`: the category's own path (a relative one under the default save path), else
    /// its name under the default save path, or (with subcategories) its last name under its parent's path.
    func categorySavePath(_ category: String?) async -> String {
        let root = settings.defaultSavePath
        guard let category, !category.isEmpty else { return root }
        let configured = categoryTable[category]?.savePath ?? ""
        var base = root
        var path = configured
        if configured.isEmpty {
            if subcategoriesEnabled {
                path = Self.validPathName(Self.lastSegment(category))
                base = await categorySavePath(Self.parentCategory(category))
            } else {
                path = Self.validPathName(category)
            }
        }
        return (try? paths.savePath(path.hasPrefix("/") ? path : base + "/" + path, relativeTo: root)) ?? root
    }

    /// Where a new torrent goes.
    struct Placement {
        var autoTMM: Bool
        var savePath: String
        /// Where its data lives until it completes; nil: straight in the save path.
        var downloadPath: String?
    }

    /// qBittorrent 5.1's `initLoadTorrentParams`: with no `autoTMM`, a torrent is automatic only when no path is
    /// given and `auto_tmm_enabled` is on. An automatic torrent takes its category's paths; a manual one takes the
    /// paths given, relative ones under its category's paths when automatic mode was asked for (or is the default)
    /// or `use_category_paths_in_manual_mode` is on, else under the default save path and the global temp path.
    func placement(_ options: AddOptions, category: String?) async throws -> Placement {
        let defaultTMM = settings[\.autoTMMEnabled]
        let autoTMM = options.autoTMM ?? (options.savePath == nil && options.downloadPath == nil && defaultTMM)
        if autoTMM {
            return Placement(autoTMM: true, savePath: await categorySavePath(category),
                             downloadPath: await categoryDownloadPath(category))
        }
        let manualCategoryPaths = settings[\.useCategoryPathsInManualMode]
        let useCategoryPaths = (options.autoTMM ?? defaultTMM) || manualCategoryPaths
        let saveBase = useCategoryPaths ? await categorySavePath(category) : settings.defaultSavePath
        let savePath = try paths.savePath(options.savePath, relativeTo: saveBase)
        let globalOn = settings[\.tempPathEnabled]
        guard options.useDownloadPath ?? (options.downloadPath != nil || globalOn) else {
            return Placement(autoTMM: false, savePath: savePath, downloadPath: nil)
        }
        let categoryBase = useCategoryPaths ? await categoryDownloadPath(category) : nil
        let downloadBase = if let categoryBase, !categoryBase.isEmpty { categoryBase } else { await globalDownloadPath() }
        return Placement(autoTMM: false, savePath: savePath,
                         downloadPath: try paths.savePath(options.downloadPath, relativeTo: downloadBase))
    }

    /// The global temp path (`temp_path`, relative ones under the default save path), whether it is on or not.
    func globalDownloadPath() async -> String {
        let root = settings.defaultSavePath
        return (try? paths.savePath(settings[\.tempPath], relativeTo: root)) ?? root
    }

    /// The download path option in force for a category: its own, else (with subcategories) its parent's, else the
    /// global one (qBittorrent's `resolveCategoryDownloadPathOption`).
    private func resolvedDownloadPathOption(_ category: String, _ option: DownloadPathOption?) async -> DownloadPathOption {
        if category.isEmpty { return DownloadPathOption(enabled: settings[\.tempPathEnabled]) }
        if let option { return option }
        let parent = subcategoriesEnabled ? Self.parentCategory(category) : ""
        return await resolvedDownloadPathOption(parent, categoryTable[parent]?.downloadPath)
    }

    /// qBittorrent's `categoryDownloadPath`: none when the option in force is off; else the option's path, or the
    /// category's name when it has none (its last name with subcategories), relative ones under the parent's
    /// download path (worked out as if it were on) or the global temp path.
    func categoryDownloadPath(_ category: String?) async -> String? {
        let name = category ?? ""
        return await downloadPath(of: name, option: categoryTable[name]?.downloadPath)
    }

    /// `categoryDownloadPath` with the category's option given (a parent's is worked out as if it were on).
    private func downloadPath(of name: String, option: DownloadPathOption?) async -> String? {
        let resolved = await resolvedDownloadPathOption(name, option)
        guard resolved.enabled else { return nil }
        if name.isEmpty { return await globalDownloadPath() }
        let subcategories = subcategoriesEnabled
        let path = !resolved.path.isEmpty ? resolved.path : Self.validPathName(subcategories ? Self.lastSegment(name) : name)
        if path.hasPrefix("/") { return try? paths.savePath(path) }
        let parent = subcategories ? Self.parentCategory(name) : ""
        let parentOption = categoryTable[parent]?.downloadPath.flatMap { $0.enabled ? $0 : nil } ?? DownloadPathOption(enabled: true)
        let parentPath = await downloadPath(of: parent, option: parentOption)
        let base = if let parentPath { parentPath } else { await globalDownloadPath() }
        return try? paths.savePath(base + "/" + path)
    }

    /// Whether a torrent in `category` (nil: none) takes its path from the default save path: no category, or one
    /// whose save path is empty or relative.
    func categoryFollowsDefaultPath(_ category: String?) -> Bool {
        guard let category, !category.isEmpty else { return true }
        return !(categoryTable[category]?.savePath ?? "").hasPrefix("/")
    }

    /// Whether a torrent in `category` takes its download path from the global temp path, as qBittorrent judges it
    /// when that path changes: no category, or one whose own option is on with a relative path.
    func categoryDownloadPathFollowsGlobal(_ category: String?) async -> Bool {
        guard let category, !category.isEmpty else { return true }
        guard let option = categoryTable[category]?.downloadPath else { return false }
        return option.enabled && !option.path.hasPrefix("/")
    }

    /// Every category's resolved save path (uploads can land in one).
    func categorySavePaths() async -> [String: String] {
        var out: [String: String] = [:]
        for name in categoryTable.keys { out[name] = await categorySavePath(name) }
        return out
    }

    /// A category's path may be anywhere, as in qBittorrent, unless `--allowed-paths` confines it.
    private func checkCategoryPath(_ path: String) async throws {
        guard !path.isEmpty else { return }
        do { _ = try paths.savePath(path, relativeTo: settings.defaultSavePath) } catch {
            throw ServiceError.conflict("\(error)")
        }
    }

    func createCategory(_ category: Category) async throws {
        guard Self.validCategory(category.name) else { throw ServiceError.conflict("Incorrect category name") }
        try await checkCategoryPath(category.savePath)
        if let download = category.downloadPath { try await checkCategoryPath(download.path) }
        guard categoryTable[category.name] == nil else { throw ServiceError.conflict("Unable to create category") }
        try await createParentCategories(of: category.name)
        guard try await store.createCategory(category) else { throw ServiceError.conflict("Unable to create category") }
        categoryTable[category.name] = category
    }

    /// With subcategories, `A/B/C` needs `A` and `A/B`: the missing ones are made, with no options of their own.
    func createParentCategories(of name: String) async throws {
        guard subcategoriesEnabled else { return }
        var parent = Self.parentCategory(name)
        var missing: [String] = []
        while !parent.isEmpty {
            if categoryTable[parent] == nil { missing.append(parent) }
            parent = Self.parentCategory(parent)
        }
        for name in missing.reversed() {
            let category = Category(name: name, savePath: "")
            try await store.createCategory(category)
            categoryTable[name] = category
        }
    }

    /// Turning subcategories on gives every category its parents (turning them off removes none).
    func expandCategories() async {
        for name in categoryTable.keys.sorted() {
            do { try await createParentCategories(of: name) } catch {
                log.add("Could not create the parent categories of \"\(name)\": \(error)", kind: .warning)
            }
        }
    }


    func editCategory(_ category: Category) async throws {
        // qBittorrent refuses an edit that changes nothing as it refuses an unknown category.
        guard let current = categoryTable[category.name], current != category else { throw ServiceError.conflict("Unable to edit category") }
        try await checkCategoryPath(category.savePath)
        if let download = category.downloadPath { try await checkCategoryPath(download.path) }
        // qBittorrent's category_changed_tmm_enabled: move the category's automatic torrents, or (its default)
        // switch them to manual mode first, where they are.
        let follow = settings[\.categoryChangedTMMEnabled]
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

    /// With subcategories, removing `A` removes `A/…` too; the torrents in them become uncategorized.
    /// `toParent` (5.2): a removed category's torrents, its subcategories' included, go to its parent category
    /// ("A/B" to "A"; a top-level one's to none) instead of to none.
    func removeCategories(_ names: [String], toParent: Bool = false) async throws {
        var removed = Set(names)
        if subcategoriesEnabled || toParent {
            for name in names { removed.formUnion(categoryTable.keys.filter { $0.hasPrefix(name + "/") }) }
        }
        var moves: [(TorrentID, String)] = []
        if toParent {
            for name in names {
                guard let slash = name.lastIndex(of: "/") else { continue }
                let parent = String(name[..<slash])
                for (id, stored) in torrents {
                    guard let c = stored.record.category, c == name || c.hasPrefix(name + "/") else { continue }
                    moves.append((id, parent))
                }
            }
        }
        try await store.removeCategories(Array(removed).sorted())
        for name in removed { categoryTable[name] = nil }
        for (id, stored) in torrents where stored.record.category.map(removed.contains) ?? false {
            torrents[id]?.record.category = nil
        }
        for (id, parent) in moves where categoryTable[parent] != nil {
            try await update(id) { $0.category = parent }
            try await relocateManaged(id)
        }
    }

    /// "" clears the category; an unknown one is qBittorrent's 409.
    func setCategory(_ ids: [TorrentID], _ name: String) async throws {
        if !name.isEmpty && categoryTable[name] == nil { throw ServiceError.conflict("Incorrect category name") }
        // qBittorrent's torrent_changed_tmm_enabled: an automatic torrent moves to its new category's path, or is
        // switched to manual mode first, where it is.
        let follow = settings[\.torrentChangedTMMEnabled]
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

    func createTags(_ names: [String]) async throws {
        let valid = names.filter(Self.validTag).filter { !tagSet.contains($0) }
        guard !valid.isEmpty else { return }
        try await store.createTags(valid)
        tagSet.formUnion(valid)
    }

    func addTags(_ ids: [TorrentID], _ names: [String]) async throws {
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
    func removeTags(_ ids: [TorrentID], _ names: [String]?) async throws {
        let targets = known(ids)
        guard !targets.isEmpty else { return }
        try await store.removeTags(names, from: targets)
        for id in targets {
            if let names { torrents[id]?.tags.removeAll { names.contains($0) } } else { torrents[id]?.tags = [] }
        }
    }

    /// `setTags` (5.1): the torrents end up with exactly these tags.
    func setTags(_ ids: [TorrentID], _ names: [String]) async throws {
        let valid = Array(Set(names.filter(Self.validTag))).sorted()
        try await removeTags(ids, nil)
        try await addTags(ids, valid)
    }

    func deleteTags(_ names: [String]) async throws {
        try await store.deleteTags(names)
        tagSet.subtract(names)
        for id in torrents.ids { torrents[id]?.tags.removeAll { names.contains($0) } }
    }
}
