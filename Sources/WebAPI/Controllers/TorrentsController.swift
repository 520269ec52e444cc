import Foundation
import HTTPKit
import QBTCore
import SystemKit
import TorrentEngine

/// `/api/v2/torrents/*`. It translates parameters into `TorrentService` calls and back; no torrent logic here.
public struct TorrentsController: APIController {
    public let scope = "torrents"
    let service: TorrentService
    let settings: ServerSettings
    let identity: Identity
    let fetcher: TorrentFetcher
    let rows: RowCache
    /// The installed search plugins' names (5.2's `downloader` must name one).
    let searchPlugins: @Sendable () async -> Set<String>
    /// 5.2's metadata look-ups.
    let metadata = MetadataCache()

    public init(service: TorrentService, settings: ServerSettings, identity: Identity, fetcher: TorrentFetcher = TorrentFetcher(),
                rows: RowCache? = nil, searchPlugins: @escaping @Sendable () async -> Set<String> = { [] }) {
        self.service = service
        self.settings = settings
        self.identity = identity
        self.fetcher = fetcher
        self.rows = rows ?? RowCache(identity: identity)
        self.searchPlugins = searchPlugins
    }

    public var actions: [String: APIAction] {
        [
            "info": .get { p, _ in try await info(p) },
            "count": .get { _, _ in .text(String(await service.listedCount)) },
            "properties": .get { p, _ in try await properties(p) },
            "files": .get { p, _ in try await files(p) },
            "add": .post { p, _ in try await add(p) },
            "delete": .post { p, _ in
                try p.require("hashes", "deleteFiles")
                let ids = try await hashes(p)
                guard let deleteFiles = p["deleteFiles"] else { throw QBitError.badParams() }
                await service.remove(ids, deleteFiles: deleteFiles.lowercased() == "true")
                return .empty
            },
            // 4.x and 5.x names of the same two verbs.
            "stop": .post { p, _ in try await service.setStopped(try await hashes(p), true); return .empty },
            "pause": .post { p, _ in try await service.setStopped(try await hashes(p), true); return .empty },
            "start": .post { p, _ in try await service.setStopped(try await hashes(p), false); return .empty },
            "resume": .post { p, _ in try await service.setStopped(try await hashes(p), false); return .empty },
            "recheck": .post { p, _ in await service.recheck(try await hashes(p)); return .empty },
            "reannounce": .post { p, _ in await service.reannounce(try await hashes(p)); return .empty },
            "addPeers": .post { p, _ in try await addPeers(p) },
            "increasePrio": .post { p, _ in try await service.queue(try await hashes(p), .up); return .empty },
            "decreasePrio": .post { p, _ in try await service.queue(try await hashes(p), .down); return .empty },
            "topPrio": .post { p, _ in try await service.queue(try await hashes(p), .top); return .empty },
            "bottomPrio": .post { p, _ in try await service.queue(try await hashes(p), .bottom); return .empty },
        ].merging(swarmActions) { $1 }.merging(settingActions) { $1 }.merging(organizeActions) { $1 }
            .merging(metadataActions) { $1 }
    }

    /// A `|` list of torrents or `all`, unknown ones left out (5.2's `applyToTorrents`).
    func applied(_ p: Parameters, _ name: String) async throws -> [TorrentID] {
        let raw = try p.required(name)
        if raw == "all" { return await service.ids }
        var ids: [TorrentID] = []
        for part in raw.split(separator: "|") {
            let id = part.lowercased()
            if await service.exists(id) { ids.append(id) }
        }
        return ids
    }

    /// `hashes`: `|`-separated, case-insensitive, or `all`. Missing is a 400.
    func hashes(_ p: Parameters) async throws -> [TorrentID] {
        let raw = try p.required("hashes")
        if raw.lowercased() == "all" { return await service.ids }
        return raw.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }

    // MARK: info

    func info(_ p: Parameters) async throws -> APIReply {
        if let hashes = p["hashes"], hashes.isEmpty { return .json(.array([])) }
        let board = await service.freshListing()
        let subcategories = service.labels.subcategoriesEnabled
        // qbtd's includeFiles and includeProperties: each row also carries what torrents/files and
        // torrents/properties answer for it, so a tool reads a library in one request.
        let withFiles = p.bool("includeFiles") == true, withProperties = p.bool("includeProperties") == true
        let withTrackers = identity.profile != .v4_6 && p.bool("includeTrackers") == true
        guard withFiles || withProperties || withTrackers else {
            let current = rows.rows(for: board)
            guard Self.isBig(board.order.count) else {
                return .jsonBytes(Self.encode(try selected(p, board: board, subcategories: subcategories), rows: current))
            }
            // A big library's listing is worked out on the background threads, so other clients' calls go first,
            // and sent a part at a time from the shared rows: never a second copy of the whole answer.
            let ids = try await inBackground { [self] in try selected(p, board: board, subcategories: subcategories) }
            return .jsonParts(Self.parts(ids, rows: current))
        }
        let ids = try await Self.heavy(board.order.count) { [self] in try selected(p, board: board, subcategories: subcategories) }
        var out: [UInt8] = [UInt8(ascii: "[")]
        // 5.1's includeTrackers: each torrent's real trackers (not the DHT/PeX/LSD rows of torrents/trackers).
        if withTrackers {
            for id in ids {
                guard let view = board.entries[id]?.view else { continue }
                var object = TorrentInfo(view, identity: identity).jsonObject(identity: identity)
                object["trackers"] = .array(((try? await service.sources.trackers(id)) ?? []).map { Self.trackerJSON($0, identity) })
                if out.count > 1 { out.append(UInt8(ascii: ",")) }
                JSONValue.object(object).write(into: &out)
                await appendExtras(view, files: withFiles, properties: withProperties, to: &out)
            }
            out.append(UInt8(ascii: "]"))
            return .jsonBytes(out)
        }
        let current = rows.rows(for: board)
        for id in ids where Self.append(id, current, to: &out) {
            if let view = board.entries[id]?.view { await appendExtras(view, files: withFiles, properties: withProperties, to: &out) }
        }
        out.append(UInt8(ascii: "]"))
        return .jsonBytes(out)
    }

    /// Listings of more torrents than this are made on the background threads (`inBackground`), not the request
    /// threads, and sent as they are made.
    static let heavyListing = 2000

    /// Whether a listing of `count` torrents is big: made on the background threads and sent as it is made.
    static func isBig(_ count: Int) -> Bool { count >= heavyListing }

    static func heavy<T: Sendable>(_ size: Int, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        isBig(size) ? try await inBackground(work) : try work()
    }

    /// The rows encoded once for every caller, in `ids`' order; only the hash is written here.
    static func encode(_ ids: [TorrentID], rows current: TorrentRows) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        out.reserveCapacity(ids.count * 1500 + 2)
        for id in ids { _ = append(id, current, to: &out) }
        out.append(UInt8(ascii: "]"))
        return out
    }

    /// The same, made a part at a time as it is sent.
    static func parts(_ ids: [TorrentID], rows current: TorrentRows) -> JSONParts {
        JSONParts(head: [UInt8(ascii: "[")], count: ids.count, tail: [UInt8(ascii: "]")]) { i, out in
            guard let row = current.rows[ids[i]] else { return false }
            row.writeWithHash(ids[i], keys: current.keys, into: &out)
            return true
        }
    }

    /// One torrent's shared row, with its hash, after a comma unless it is the array's first; false when it has none.
    static func append(_ id: TorrentID, _ current: TorrentRows, to out: inout [UInt8]) -> Bool {
        guard let row = current.rows[id] else { return false }
        if out.count > 1 { out.append(UInt8(ascii: ",")) }
        row.writeWithHash(id, keys: current.keys, into: &out)
        return true
    }

    /// The torrents a `torrents/info` asks for, filtered, sorted and paged as qBittorrent does.
    func selected(_ p: Parameters, board: TorrentBoard, subcategories: Bool) throws -> [TorrentID] {
        let filter = QBTFilter(p["filter"])
        let wanted = p["hashes"].map { Set($0.split(separator: "|").map { $0.lowercased() }) }
        // Everything (a full listing): no torrent's view to look at.
        // qbtd's `node` (a cluster's): the torrents one node runs.
        let node = identity.node == nil ? nil : p["node"]
        let everything = filter == .all && wanted == nil && p["category"] == nil && p["tag"] == nil && node == nil
        var ids = everything ? board.order : board.order.filter { id in
            guard let view = board.entries[id]?.view else { return false }
            if let wanted, !wanted.contains(view.id) { return false }
            if let node, (view.node ?? identity.node) != node { return false }
            if let category = p["category"] {
                let mine = view.record.category ?? ""
                // A subcategory is in its parent's listing only with subcategories on.
                let inside = mine == category || (subcategories && mine.hasPrefix(category + "/"))
                if category.isEmpty ? !mine.isEmpty : !inside { return false }
            }
            if let tag = p["tag"] {
                if tag.isEmpty ? !view.tags.isEmpty : !view.tags.contains(tag) { return false }
            }
            return filter.matches(view.state, stopped: view.isStopped, uploadRate: view.status.uploadRate,
                                  downloadRate: view.status.downloadRate, transferring: identity.profile >= .v5_2)
        }
        if let sort = p["sort"], !sort.isEmpty, !ids.isEmpty {
            ids = try sorted(ids, board: board, by: sort, reverse: p.bool("reverse") ?? false)
        }
        // limit ≤ 0 means all; a negative offset counts from the end (QString::toInt: garbage reads as 0).
        let limit = p.int("limit") ?? 0
        var offset = p.int("offset") ?? 0
        if offset < 0 { offset += ids.count }
        if offset < 0 || offset >= ids.count { offset = 0 }  // still out of range: from the start, as qBittorrent
        if offset > 0 { ids = Array(ids.dropFirst(offset)) }
        if limit > 0 { ids = Array(ids.prefix(limit)) }
        return ids
    }

    /// Adds `"files"` and `"properties"` (qbtd's includeFiles/includeProperties) inside the torrent object that
    /// `out` ends with. A torrent whose files cannot be read (no metadata yet) gets `"files": []`.
    func appendExtras(_ view: TorrentView, files: Bool, properties: Bool, to out: inout [UInt8]) async {
        guard files || properties, out.last == UInt8(ascii: "}") else { return }
        out.removeLast()
        if files {
            out.append(contentsOf: #","files":"#.utf8)
            out.append(contentsOf: FileInfo.json((try? await fileInfos(view)) ?? []))
        }
        if properties {
            out.append(contentsOf: #","properties":"#.utf8)
            JSONValue.object(propertiesObject(view)).write(into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Sorts by any key of the torrent object, as qBittorrent does; an unknown key is a 400.
    func sorted(_ ids: [TorrentID], board: TorrentBoard, by key: String, reverse: Bool) throws -> [TorrentID] {
        guard let field = TorrentInfo.fields(for: identity).first(where: { $0.name == key }) else {
            throw QBitError.badParams("'sort' parameter is invalid")
        }
        let keyed = ids.map { id in (id, board.entries[id].map { field.value(TorrentInfo($0.view, identity: identity)) } ?? .null) }
        return keyed.sorted { a, b in reverse ? Self.less(b.1, a.1) : Self.less(a.1, b.1) }.map(\.0)
    }

    static func less(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)): x.localizedStandardCompare(y) == .orderedAscending
        case (.bool(let x), .bool(let y)): !x && y
        default: (Self.number(a) ?? 0) < (Self.number(b) ?? 0)
        }
    }

    static func number(_ v: JSONValue) -> Double? {
        switch v {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }

    // MARK: one torrent

    func view(_ p: Parameters) async throws -> TorrentView {
        let id = try p.required("hash").lowercased()
        guard let view = await service.freshView(id) else { throw QBitError.notFound() }
        return view
    }

    func properties(_ p: Parameters) async throws -> APIReply {
        .json(.object(propertiesObject(try await view(p))))
    }

    func propertiesObject(_ view: TorrentView) -> [String: JSONValue] {
        var object = TorrentProperties(view, info: TorrentInfo(view, identity: identity), identity: identity).jsonObject
        if !identity.hasV5TorrentFields { for key in TorrentProperties.v5Fields { object[key] = nil } }
        // 5.3: the distributed copies, as torrents/info's `availability` (-1 while not downloading).
        if identity.profile >= .v5_3 { object["availability"] = .double(view.status.distributedCopies) }
        return object
    }

    func files(_ p: Parameters) async throws -> APIReply {
        let view = try await view(p)
        let files = try await fileInfos(view)
        guard let indexes = p["indexes"] else { return .jsonBytes(FileInfo.json(files)) }
        var wanted = Set<Int>()
        for item in indexes.split(separator: "|", omittingEmptySubsequences: false) {
            guard let i = Int(item), i >= 0 else { throw QBitError.conflict("\"\(item)\" is not a valid file index.") }
            guard i >= 0, i < files.count else { throw QBitError.conflict("Index \(i) is out of bounds.") }
            wanted.insert(i)
        }
        return .jsonBytes(FileInfo.json(files.filter { wanted.contains($0.index) }))
    }

    /// Every file of a torrent as torrents/files lists it.
    func fileInfos(_ view: TorrentView) async throws -> [FileInfo] {
        let files = try await service.files(view.id)
        // qBittorrent's fractions: of each file's pieces, how many a connected peer has; -1 for every file when
        // libtorrent keeps no availability (a torrent that only seeds).
        let pieces = (try? await service.swarm.pieceAvailability(view.id)) ?? []
        return files.enumerated().map { index, file in
            FileInfo(index: index, name: file.path, size: file.size, progress: file.progress,
                     priority: Self.qbtPriority(file.priority), is_seed: index == 0 ? view.status.isSeeding : nil,
                     piece_range: [file.pieceRange.lowerBound, file.pieceRange.upperBound],
                     availability: Self.fileAvailability(file.pieceRange, pieces: pieces))
        }
    }

    static func fileAvailability(_ range: ClosedRange<Int>, pieces: [Int]) -> Double {
        guard !pieces.isEmpty else { return -1 }
        let inRange = range.clamped(to: 0...max(0, pieces.count - 1))
        let available = inRange.reduce(0) { $0 + (pieces[$1] > 0 ? 1 : 0) }
        return Double(available) / Double(range.count)
    }

    /// libtorrent 0…7 to qBittorrent's 0 (skip), 1 (normal), 6 (high), 7 (maximum).
    static func qbtPriority(_ lt: Int) -> Int {
        switch lt {
        case 0: 0
        case 7: 7
        case 5, 6: 6
        default: 1
        }
    }

    // MARK: add

    func add(_ p: Parameters) async throws -> APIReply {
        var options = AddOptions()
        // Relative paths are resolved by the service, as qBittorrent resolves them; a path no base can make
        // acceptable (outside `--allowed-paths`) is a 400 here.
        if let requested = p["savepath"]?.trimmingCharacters(in: .whitespaces), !requested.isEmpty {
            do { _ = try settings.paths.savePath(requested, relativeTo: settings.defaultSavePath) } catch {
                throw QBitError.badParams("\(error)")
            }
            options.savePath = requested
        }
        // 4.4+: where the data lives until it completes (manual mode); `useDownloadPath` false means none.
        if let requested = p["downloadPath"]?.trimmingCharacters(in: .whitespaces), !requested.isEmpty {
            do { _ = try settings.paths.savePath(requested, relativeTo: settings.defaultSavePath) } catch {
                throw QBitError.badParams("\(error)")
            }
            options.downloadPath = requested
        }
        options.useDownloadPath = p.bool("useDownloadPath")
        options.category = p["category"]?.trimmingCharacters(in: .whitespaces)
        if let category = options.category, !category.isEmpty, !TorrentLabels.validCategory(category) {
            throw QBitError.badParams("Incorrect category name")
        }
        options.tags = (p.list("tags", separator: ",") ?? []).map { $0.trimmingCharacters(in: .whitespaces) }
        // 5.x says `stopped`, 4.x says `paused`: either one stops the torrent.
        options.stopped = p.bool("stopped") ?? p.bool("paused") ?? false
        // 5.3 renamed skip_checking (libtorrent's seed mode either way) to seedMode and ignores the old name.
        options.skipChecking = identity.profile >= .v5_3 ? p.bool("seedMode") ?? false
            : p.bool("skip_checking") ?? p.bool("seedMode") ?? false
        options.sequential = p.bool("sequentialDownload") ?? false
        options.firstLastPiecePrio = p.bool("firstLastPiecePrio") ?? false
        options.rename = p["rename"]?.trimmingCharacters(in: .whitespaces)
        options.uploadLimit = p.int("upLimit") ?? 0
        options.downloadLimit = p.int("dlLimit") ?? 0
        options.ratioLimit = p.double("ratioLimit") ?? -2
        options.seedingTimeLimit = p.int("seedingTimeLimit") ?? -2
        options.inactiveSeedingTimeLimit = p.int("inactiveSeedingTimeLimit") ?? -2
        options.autoTMM = p.bool("autoTMM")
        options.forced = p.bool("forced") ?? false
        options.addToTopOfQueue = p.bool("addToTopOfQueue") ?? false
        // 4.3+ `contentLayout`; older clients send `root_folder` (true: a top folder, false: none).
        if let layout = p["contentLayout"] { options.contentLayout = ContentLayout(rawValue: layout) }
        else if let root = p.bool("root_folder") { options.contentLayout = root ? .subfolder : .noSubfolder }
        if p["stopped"] == nil && p["paused"] == nil { options.stopped = settings[\.addStoppedEnabled] }
        if let condition = p["stopCondition"], !condition.isEmpty { options.stopCondition = condition }
        options.shareLimitAction = p["shareLimitAction"]
        options.shareLimitsMode = p["shareLimitsMode"]

        let urls = (p["urls"] ?? "").split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let filePriorities = identity.profile >= .v5_2 ? try await checkV52AddParameters(p, urls: urls) : nil
        // Every uploaded file must parse before anything is added: a bad upload changes nothing. The parse is
        // the one the engine adds from.
        var parsed: [ParsedTorrent] = []
        for file in p.files {
            guard let torrent = try? ParsedTorrent(.metainfo(file.data)) else {
                throw QBitError.unsupportedMediaType("Error: '\(file.filename)' is not a valid torrent file.")
            }
            parsed.append(torrent)
        }
        var added: [TorrentID] = [], failed = 0
        let route = urls.isEmpty ? .direct : settings.fetchRoute(for: .misc)
        for url in urls {
            var options = options
            let source: AddTorrentRequest.Source?
            // 5.2: metadata fetched or parsed before is what gets added (with `filePriorities`, if given); `add`
            // takes both look-ups for the URL.
            let known = identity.profile >= .v5_2 ? metadata.torrent(forSource: url) ?? Self.parseSource(url)?.id : nil
            if let entry = known.flatMap(metadata.entry) {
                source = .metainfo(entry.metainfo)
                if let filePriorities {
                    guard filePriorities.count == entry.summary.files.count else {
                        throw QBitError.badParams("Length of filePriorities must equal number of files in torrent")
                    }
                    options.filePriorities = filePriorities
                }
            } else {
                if filePriorities != nil {
                    throw QBitError.badParams("`filePriorities` may only be specified when metadata has already been fetched")
                }
                source = await fetcher.source(for: url, route: route)
            }
            if let known { metadata.forget(torrent: known) }
            metadata.forget(source: url)
            guard let source else { failed += 1; continue }
            if case .added(let id) = await service.add(source, options: options) { added.append(id) } else { failed += 1 }
        }
        // The files in one batch: one SQLite transaction, one hop to the engine.
        for outcome in await service.add(parsed, options: options) {
            if case .added(let id) = outcome { added.append(id) } else { failed += 1 }
        }
        guard identity.profile >= .v5_2 else { return .text(added.isEmpty ? "Fails." : "Ok.") }
        // 5.2: counts and the IDs; nothing added is a 409 (qbtd fetches URLs before answering: nothing is pending).
        guard !added.isEmpty else { throw QBitError.conflict("Conflict") }
        return .json(.object([
            "added_torrent_ids": .array(added.map { .string($0) }), "failure_count": .int(Int64(failed)),
            "pending_count": .int(0), "success_count": .int(Int64(added.count)),
        ]))
    }

    /// 5.2's checks before anything is added: `filePriorities` (returned) for one URL only, and a `downloader`
    /// that exists.
    private func checkV52AddParameters(_ p: Parameters, urls: [String]) async throws -> [Int]? {
        if !(p["filePriorities"] ?? "").split(separator: ",").isEmpty {  // these two come first, as in 5.2.3
            if urls.count > 1 { throw QBitError.badParams("Cannot specify filePriorities when adding multiple torrents") }
            if !p.files.isEmpty { throw QBitError.badParams("Cannot specify filePriorities when uploading torrent files") }
        }
        let priorities = try Self.filePriorities(p)
        if let name = p["downloader"], !name.isEmpty, !(await searchPlugins()).contains(name) {
            throw QBitError.badParams("`downloader` must be a valid search plugin")
        }
        return priorities
    }

    /// `filePriorities`: comma-separated qBittorrent priorities (0, 1, 6, 7, or -1 for "mixed"); nil when none.
    static func filePriorities(_ p: Parameters) throws -> [Int]? {
        let items = (p["filePriorities"] ?? "").split(separator: ",")
        guard !items.isEmpty else { return nil }
        return try items.map { item in
            guard let value = Int(item) else { throw QBitError.badParams("Priority must be an integer") }
            guard [0, 1, 6, 7, -1].contains(value) else { throw QBitError.badParams("Priority is not valid") }
            return value
        }
    }

    // MARK: peers

    func addPeers(_ p: Parameters) async throws -> APIReply {
        let ids = try await hashes(p)
        let given = try p.required("peers").split(separator: "|")
        let peers = given.compactMap { PeerAddress.parse(String($0)) }
        if peers.isEmpty { throw QBitError.badParams("No valid peers were specified") }
        let results = await service.swarm.addPeers(ids, peers: peers)
        var out: [String: [String: Int]] = [:]
        // Like qBittorrent, `failed` counts every entry given that was not added, unparsable ones included.
        for (id, r) in results { out[id] = ["added": r.added, "failed": given.count - r.added] }
        return try .encode(out)
    }
}
