import Foundation
import Store
import TorrentEngine

/// Per-torrent controls behind `torrents/*`: each one records the change, then tells the engine.
extension TorrentService {
    /// Stops (pauses) or starts torrents, and remembers it.
    public func setStopped(_ ids: [TorrentID], _ stopped: Bool) async throws {
        let gone = stopped ? [:] : await contentMissing(known(ids))
        for id in known(ids) {
            // A stop by hand ends any stop condition, as in qBittorrent.
            try await update(id) { $0.stopped = stopped; if stopped { $0.stopCondition = nil } }
            // A stop by hand ends the free-space guard's hold; a start clears the last file error (the engine's
            // error goes with it), and a held torrent stays held until its space is back.
            if stopped { torrents[id]?.facts.diskHold = nil } else { await clearFileFault(id, starting: true) }
            if let fault = gone[id] { await halt(id, fault) }
            await applyRunState(id)
            try? await engine.saveResumeData(id)
        }
    }

    /// A stopped torrent is started for the check and stops again once checked (qBittorrent's FilesChecked stop
    /// condition): libtorrent does not check a paused torrent.
    public func recheck(_ ids: [TorrentID]) async {
        for id in known(ids) {
            // Without metadata there is nothing to check (and a stopped magnet stays stopped), as in qBittorrent.
            guard (try? engine.status(id).hasMetadata) == true else { continue }
            let halted = torrents[id]?.facts.halted == true
            await clearFileFault(id)  // libtorrent's recheck clears its error too
            try? await engine.recheck(id)
            if torrents[id]?.record.stopped == true {
                try? await update(id) { $0.stopped = false; $0.stopCondition = StopCondition.filesChecked.rawValue }
                await applyRunState(id)
            } else if halted {
                await applyRunState(id)  // qbtd paused it for its files: the check needs it running
            }
        }
    }

    /// 5.2's `torrents/setComment`: qbtd's own comment for the torrent (the .torrent is left as it is).
    public func setComment(_ ids: [TorrentID], _ comment: String) async throws {
        for id in known(ids) { try await update(id) { $0.comment = comment } }
    }

    func pieceAvailability(_ id: TorrentID) async throws -> [Int] {
        guard torrents[id] != nil else { throw ServiceError.notFound }
        return (try? await engine.pieceAvailability(id)) ?? []
    }

    public func reannounce(_ ids: [TorrentID]) async {
        for id in known(ids) { try? await engine.reannounce(id) }
    }

    /// `increasePrio` and friends: only meaningful with queueing on, as in qBittorrent (409 otherwise).
    public func queue(_ ids: [TorrentID], _ move: QueueMove) async throws {
        guard rowSettings.queueingEnabled else { throw ServiceError.conflict("Torrent queueing must be enabled") }
        let named = known(ids)
        for id in Self.queueOrder(named, move, positions: await queuePositions(named)) { try? await engine.queue(id, move) }
    }

    /// These torrents' places in the queue now (-1: not queued).
    private func queuePositions(_ ids: [TorrentID]) async -> [TorrentID: Int] {
        await engine.freshen()
        let snapshot = engine.snapshot
        return Dictionary(ids.map { ($0, snapshot.status($0)?.queuePosition ?? -1) }, uniquingKeysWith: { a, _ in a })
    }

    /// The order qBittorrent moves them in, whatever order the client named them in: up and to the bottom from the
    /// highest place in the queue down, down and to the top from the lowest up (two neighbours moved up together both
    /// go up a place, and a block keeps its order); torrents outside the queue are left alone.
    static func queueOrder(_ ids: [TorrentID], _ move: QueueMove, positions: [TorrentID: Int]) -> [TorrentID] {
        let queued = Set(ids).compactMap { id in positions[id].flatMap { $0 >= 0 ? (id, $0) : nil } }
        let highestFirst = move == .up || move == .bottom
        return queued.sorted { highestFirst ? $0.1 < $1.1 : $0.1 > $1.1 }.map(\.0)
    }

    /// Connects each torrent to the given peers; returns how many were handed to the engine per torrent.
    func addPeers(_ ids: [TorrentID], peers: [(host: String, port: Int)]) async -> [TorrentID: (added: Int, failed: Int)] {
        var out: [TorrentID: (added: Int, failed: Int)] = [:]
        for id in known(ids) {
            var added = 0, failed = 0
            for peer in peers {
                do { try await engine.connectPeer(id, host: peer.host, port: peer.port); added += 1 } catch { failed += 1 }
            }
            out[id] = (added, failed)
        }
        return out
    }

    // MARK: limits and flags

    /// Bytes per second; nil leaves that direction alone, 0 or less is unlimited.
    public func setLimits(_ ids: [TorrentID], upload: Int?, download: Int?) async throws {
        for id in known(ids) {
            guard let r = torrents[id]?.record else { continue }
            let up = upload.map { max(0, $0) } ?? r.uploadLimit
            let down = download.map { max(0, $0) } ?? r.downloadLimit
            try await update(id) { $0.uploadLimit = up; $0.downloadLimit = down }
            try? await engine.setLimits(id, upload: up, download: down)
        }
    }

    /// `action` (5.2) and `mode` (5.3) nil leave the torrent's as they are (older clients do not send them).
    public func setShareLimits(_ ids: [TorrentID], ratio: Double, seedingTime: Int, inactiveSeedingTime: Int,
                               action: String? = nil, mode: String? = nil) async throws {
        let stored = action.map { Self.shareLimitAction($0) }
        let storedMode = mode.map { Self.shareLimitsMode($0) }
        for id in known(ids) {
            try await update(id) {
                $0.ratioLimit = ratio
                $0.seedingTimeLimit = seedingTime
                $0.inactiveSeedingTimeLimit = inactiveSeedingTime
                if let stored { $0.shareLimitAction = stored }
                if let storedMode { $0.shareLimitsMode = storedMode }
            }
        }
    }

    /// 5.3's `ShareLimitsMode` names as stored: an unknown name, or "Default", follows the global mode.
    static func shareLimitsMode(_ name: String?) -> String? {
        guard let name, ["MatchAny", "MatchAll"].contains(name) else { return nil }
        return name
    }

    /// 5.x's `ShareLimitAction` names as stored: an unknown name, or "Default", follows the global action.
    static func shareLimitAction(_ name: String?) -> String? {
        guard let name, ["Stop", "Remove", "RemoveWithContent", "EnableSuperSeeding"].contains(name) else { return nil }
        return name
    }

    public func toggleSequential(_ ids: [TorrentID]) async throws {
        for id in known(ids) {
            guard let on = torrents[id].map({ !$0.record.sequential }) else { continue }
            try await update(id) { $0.sequential = on }
            try? await engine.setSequential(id, on)
        }
    }

    public func toggleFirstLastPiecePrio(_ ids: [TorrentID]) async throws {
        for id in known(ids) {
            guard let on = torrents[id].map({ !$0.record.firstLastPiecePrio }) else { continue }
            try await update(id) { $0.firstLastPiecePrio = on }
            try? await prioritizeFirstLastPieces(id, on: on)
        }
    }

    public func setForceStart(_ ids: [TorrentID], _ on: Bool) async throws {
        for id in known(ids) {
            // Forcing a stopped torrent starts it, as qBittorrent's "Force Resume" does.
            try await update(id) { $0.forceStart = on; if on { $0.stopped = false } }
            await applyRunState(id)
        }
    }

    public func setSuperSeeding(_ ids: [TorrentID], _ on: Bool) async throws {
        for id in known(ids) {
            try await update(id) { $0.superSeeding = on }
            try? await engine.setSuperSeeding(id, on)
        }
    }

    /// qBittorrent's priorities 0 (skip), 1 (normal), 6 (high), 7 (maximum) map to libtorrent's 0, 4, 6, 7.
    /// `files` are API indexes (pad files not counted); libtorrent's own indexes count them.
    public func setFilePriority(_ id: TorrentID, files: [Int], priority: Int) async throws {
        guard torrents[id] != nil else { throw ServiceError.notFound }
        let list = try await engine.files(id)
        guard !list.isEmpty else { throw ServiceError.conflict("Torrent's metadata has not yet downloaded") }
        guard files.allSatisfy(list.indices.contains) else { throw ServiceError.conflict("File ID is not valid") }
        let lt = priority == 1 ? 4 : priority
        for index in files { try await engine.setFilePriority(id, file: list[index].index, priority: lt) }
        // libtorrent applies file priorities after a disk job: answer once they read back (as qBittorrent, which
        // answers from its own copy), within 2 s.
        for _ in 0..<200 {
            let now = try await engine.files(id)
            if files.allSatisfy({ now[$0].priority == lt }) { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        try? await engine.saveResumeData(id)
    }

    // MARK: names and paths

    public func rename(_ id: TorrentID, to name: String) async throws {
        guard torrents[id] != nil else { throw ServiceError.notFound }
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw ServiceError.conflict("Incorrect torrent name") }
        try await update(id) { $0.name = trimmed }
    }

    /// A path inside the torrent: relative, no `.`/`..`/empty parts, no NUL. That keeps every rename inside
    /// the torrent's save path, whatever the client sends.
    static func validRelativePath(_ path: String) -> Bool {
        guard !path.isEmpty, !path.hasPrefix("/"), !path.contains("\0"), !path.contains("\\") else { return false }
        return path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }

    public func renameFile(_ id: TorrentID, from oldPath: String, to newPath: String) async throws {
        guard torrents[id] != nil else { throw ServiceError.notFound }
        guard Self.validRelativePath(oldPath) else { throw ServiceError.conflict("The old path is invalid: '\(oldPath)'.") }
        guard Self.validRelativePath(newPath) else { throw ServiceError.conflict("The new path is invalid: '\(newPath)'.") }
        let files = try await engine.files(id)
        guard let file = files.first(where: { $0.path == oldPath }) else { throw ServiceError.conflict("No such file: '\(oldPath)'.") }
        if oldPath == newPath { return }
        if files.contains(where: { $0.path == newPath || $0.path.hasPrefix(newPath + "/") }) {
            throw ServiceError.conflict("The file already exists: '\(newPath)'.")
        }
        try await engine.renameFile(id, index: file.index, to: Self.diskPath(of: file, renamedTo: newPath))
    }

    /// Lays the files out as `layout` says, once the torrent has metadata.
    func applyContentLayout(_ id: TorrentID, _ layout: ContentLayout) async {
        guard let files = try? await engine.files(id), !files.isEmpty,
              let paths = layout.paths(for: files.map(\.path), torrentName: torrents[id]?.record.name ?? id) else { return }
        for (file, path) in zip(files, paths) where file.path != path {
            try? await engine.renameFile(id, index: file.index, to: Self.diskPath(of: file, renamedTo: path))
        }
    }

    public func renameFolder(_ id: TorrentID, from oldPath: String, to newPath: String) async throws {
        guard torrents[id] != nil else { throw ServiceError.notFound }
        guard Self.validRelativePath(oldPath) else { throw ServiceError.conflict("The old path is invalid: '\(oldPath)'.") }
        guard Self.validRelativePath(newPath) else { throw ServiceError.conflict("The new path is invalid: '\(newPath)'.") }
        let files = try await engine.files(id)
        let inside = files.filter { $0.path.hasPrefix(oldPath + "/") }
        guard !inside.isEmpty else { throw ServiceError.conflict("No such folder: '\(oldPath)'.") }
        if oldPath == newPath { return }
        if files.contains(where: { $0.path == newPath || $0.path.hasPrefix(newPath + "/") }) {
            throw ServiceError.conflict("The folder already exists: '\(newPath)'.")
        }
        for file in inside {
            let path = newPath + file.path.dropFirst(oldPath.count)
            try await engine.renameFile(id, index: file.index, to: Self.diskPath(of: file, renamedTo: path))
        }
    }

    /// Resolves a client path (relative ones under the default save path) and creates it, as qBittorrent's
    /// `setLocation` (409 `Cannot make save path`) and `setSavePath`/`setDownloadPath` (409 `Cannot create target
    /// directory`, 403 `Cannot write to directory`) do; outside `--allowed-paths` is a 409 naming the allowed folders.
    func makeSavePath(_ requested: String, checkingWrites: Bool) async throws -> String {
        let path: String
        do { path = try paths.savePath(requested, relativeTo: settings.defaultSavePath) } catch {
            throw ServiceError.conflict("\(error)")
        }
        do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
            throw ServiceError.conflict(checkingWrites ? "Cannot create target directory" : "Cannot make save path")
        }
        if checkingWrites, access(path, W_OK) != 0 { throw ServiceError.forbidden("Cannot write to directory") }
        return path
    }

    /// Moves the data and turns automatic management off (qBittorrent's `setLocation`).
    public func setLocation(_ ids: [TorrentID], to requested: String) async throws {
        let path = try await makeSavePath(requested, checkingWrites: false)
        for id in known(ids) {
            try await update(id) { $0.savePath = path; $0.autoTMM = false; $0.downloadPath = nil }
            torrents[id]?.facts.moving = true
            try? await engine.moveStorage(id, to: path)
        }
    }

    /// `setSavePath`: like `setLocation`, but automatically managed torrents are left alone.
    public func setSavePath(_ ids: [TorrentID], to requested: String) async throws {
        let path = try await makeSavePath(requested, checkingWrites: true)
        for id in known(ids) where torrents[id]?.record.autoTMM == false {
            let downloading = torrents[id]?.record.downloadPath != nil
            try await update(id) { $0.savePath = path }
            if !downloading {
                torrents[id]?.facts.moving = true
                try? await engine.moveStorage(id, to: path)
            }
        }
    }

    /// `setDownloadPath`: where an incomplete torrent downloads; "" means straight into the save path.
    public func setDownloadPath(_ ids: [TorrentID], to requested: String) async throws {
        let path = requested.isEmpty ? nil : try await makeSavePath(requested, checkingWrites: true)
        for id in known(ids) where torrents[id]?.record.autoTMM == false {
            guard let view = view(id), !view.status.isFinished else { continue }
            try await update(id) { $0.downloadPath = path }
            torrents[id]?.facts.moving = true
            try? await engine.moveStorage(id, to: path ?? view.record.savePath)
        }
    }

    public func setAutoManagement(_ ids: [TorrentID], _ on: Bool) async throws {
        for id in known(ids) {
            guard let record = torrents[id]?.record, record.autoTMM != on else { continue }
            try await update(id) { $0.autoTMM = on }
            if on { try await relocateManaged(id) }
        }
    }

    /// Puts an automatically managed torrent where its category says.
    /// An automatic torrent's paths follow its category: the save path always, the download path while it is
    /// incomplete; the data moves to whichever of the two it lives in now (qBittorrent's `adjustStorageLocation`).
    func relocateManaged(_ id: TorrentID) async throws {
        guard let record = torrents[id]?.record, record.autoTMM else { return }
        let target = await categorySavePath(record.category)
        let finished = engine.snapshot.status(id).map { $0.isFinished || $0.isSeeding } ?? false
        let download = finished ? nil : await categoryDownloadPath(record.category)
        guard target != record.savePath || download != record.downloadPath else { return }
        try await update(id) {
            $0.savePath = target
            $0.downloadPath = download
        }
        let location = download ?? target
        guard location != record.downloadPath ?? record.savePath else { return }
        try? FileManager.default.createDirectory(atPath: location, withIntermediateDirectories: true)
        torrents[id]?.facts.moving = true
        try? await engine.moveStorage(id, to: location)
    }

    // MARK: trackers and web seeds

    /// The trackers in qbtd's own order (as added or edited, by tier), as qBittorrent keeps its list: libtorrent
    /// moves a tracker that fails to the end of its tier, which must not reorder what clients see.
    func trackers(_ id: TorrentID) async throws -> [TrackerEntry] {
        guard torrents[id] != nil else { throw ServiceError.notFound }
        let entries = try await engine.trackers(id)
        guard let known = torrents[id]?.facts.trackers, !known.isEmpty else { return entries }
        let rank = Dictionary(known.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        return entries.enumerated().sorted { a, b in
            (a.element.tier, rank[a.element.url] ?? Int.max, a.offset) < (b.element.tier, rank[b.element.url] ?? Int.max, b.offset)
        }.map(\.element)
    }

    private func writeTrackers(_ id: TorrentID, _ list: [(url: String, tier: Int)]) async throws {
        try await engine.setTrackers(id, list)
        torrents[id]?.facts.trackers = list.map(\.url)
        forgetAnnounces(id, keeping: Set(list.map(\.url)))
        try? await engine.saveResumeData(id)
    }

    /// Adds trackers at the tiers given, skipping URLs already there (as `TorrentImpl::addTrackers`).
    func addTrackers(_ id: TorrentID, _ entries: [(url: String, tier: Int)]) async throws {
        var list = try await trackers(id).map { (url: $0.url, tier: $0.tier) }
        let count = list.count
        for entry in entries where !list.contains(where: { $0.url == entry.url }) { list.append(entry) }
        guard list.count > count else { return }
        try await writeTrackers(id, list)
    }

    /// Gives a tracker a new URL, a new tier (5.2), or both; nothing to change is no change.
    func editTracker(_ id: TorrentID, from oldURL: String, to newURL: String?, tier: Int? = nil) async throws {
        var list = try await trackers(id).map { (url: $0.url, tier: $0.tier) }
        if let newURL, list.contains(where: { $0.url == newURL }) {
            throw ServiceError.conflict("New tracker URL already exists")
        }
        guard let index = list.firstIndex(where: { $0.url == oldURL }) else {
            if newURL == nil && tier == nil { return }
            throw ServiceError.conflict("Tracker not found")
        }
        if newURL == nil && (tier == nil || tier == list[index].tier) { return }
        if let newURL { list[index].url = newURL }
        if let tier { list[index].tier = tier }
        try await writeTrackers(id, list)
        try? await engine.reannounce(id)
    }

    func removeTrackers(_ id: TorrentID, urls: [String]) async throws {
        let list = try await trackers(id).map { (url: $0.url, tier: $0.tier) }
        let kept = list.filter { !urls.contains($0.url) }
        guard kept.count < list.count else { return }
        try await writeTrackers(id, kept)
    }

    func webSeeds(_ id: TorrentID) async throws -> [String] {
        guard torrents[id] != nil else { throw ServiceError.notFound }
        return try await engine.webSeeds(id)
    }

    func addWebSeeds(_ id: TorrentID, urls: [String]) async throws {
        guard torrents[id] != nil else { throw ServiceError.notFound }
        for url in urls { try await engine.addWebSeed(id, url) }
        await rememberSources(id)
        try? await engine.saveResumeData(id)
    }

    func removeWebSeeds(_ id: TorrentID, urls: [String]) async throws {
        guard torrents[id] != nil else { throw ServiceError.notFound }
        for url in urls { try await engine.removeWebSeed(id, url) }
        await rememberSources(id)
        try? await engine.saveResumeData(id)
    }

    func editWebSeed(_ id: TorrentID, from oldURL: String, to newURL: String) async throws {
        let seeds = try await webSeeds(id)
        guard seeds.contains(oldURL) else { throw ServiceError.conflict("Web seed not found: \(oldURL)") }
        if seeds.contains(newURL) { throw ServiceError.conflict("Web seed already exists: \(newURL)") }
        try await engine.removeWebSeed(id, oldURL)
        try await engine.addWebSeed(id, newURL)
        await rememberSources(id)
        try? await engine.saveResumeData(id)
    }

    // MARK: pieces, peers, export

    func pieceStates(_ id: TorrentID) async throws -> [PieceState] {
        guard torrents[id] != nil else { throw ServiceError.notFound }
        return try await engine.pieceStates(id)
    }

    func pieceHashes(_ id: TorrentID) async throws -> [String] {
        guard torrents[id] != nil else { throw ServiceError.notFound }
        return try await engine.pieceHashes(id)
    }

    func peers(_ id: TorrentID) async throws -> [PeerEntry] {
        guard torrents[id] != nil else { throw ServiceError.notFound }
        return try await engine.peers(id)
    }

    // MARK: SSL torrents

    func sslParameters(_ id: TorrentID) async throws -> SSLParameters? {
        guard torrents[id] != nil else { throw ServiceError.notFound }
        return try await store.sslParameters(id)
    }

    /// Stored first, then handed to the engine (it matters only to SSL torrents); `false` when the
    /// certificate or key does not parse or the DH parameters are missing.
    func setSSLParameters(_ id: TorrentID, _ p: SSLParameters) async throws -> Bool {
        guard torrents[id] != nil else { throw ServiceError.notFound }
        guard LibtorrentEngine.isCertificate(p.certificate), LibtorrentEngine.isPrivateKey(p.privateKey), !p.dhParams.isEmpty
        else { return false }
        try await store.setSSLParameters(id, p)
        try? await engine.setSSLCertificate(id, certificate: p.certificate, privateKey: p.privateKey, dhParams: p.dhParams)
        return true
    }

    func export(_ id: TorrentID) async throws -> [UInt8] {
        guard torrents[id] != nil else { throw ServiceError.notFound }
        guard try engine.status(id).hasMetadata else {
            throw ServiceError.conflict("Unable to export torrent file. Error: Missing metadata")
        }
        do { return try await engine.exportTorrent(id) } catch {
            throw ServiceError.conflict("Unable to export torrent file. Error: \(error)")
        }
    }
}
