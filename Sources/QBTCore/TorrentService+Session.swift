import Foundation
import Store
import TorrentEngine

/// The whole-session side: the network binding's log, speed modes and their schedule, share limits, transfer
/// figures and peer bans (preferences reach the engine through `TorrentService+Preferences`).
extension TorrentService {
    /// Says where peers are listened for and connected from, and what is wrong with the binding.
    func logNetworkBinding() {
        let engineSettings = settings.engineSettings()
        if let problem = settings.networkBinding()?.problem { log.add(problem, kind: .critical) }
        log.add("Trying to listen on the following list of IP addresses: \"\(engineSettings.listenInterfaces)\""
                + (engineSettings.outgoingInterfaces.isEmpty ? "" : "; outgoing connections bound to \"\(engineSettings.outgoingInterfaces)\""),
                kind: .info)
    }

    /// Switches between the normal and the alternative global limits.
    func setAlternativeSpeed(_ on: Bool) async throws {
        guard settings.alternativeSpeed != on else { return }
        try await settings.setAlternativeSpeed(on)
        try await engine.apply(settings.appliedEngineSettings())
        log.add(on ? "Alternative speed limits on" : "Alternative speed limits off", kind: .info)
    }

    /// In a cluster: this node's share of the global rate limits changed; libtorrent's limits follow.
    func setClusterLimits(_ shares: NodeLimits) async {
        guard settings.setClusterLimits(shares) else { return }
        do { try await engine.apply(settings.appliedEngineSettings()) } catch {
            logger.warning("this node's share of the cluster's rate limits is not applied: \(error)")
        }
    }

    /// Sets the global limit of the mode in use (bytes/s, ≤0 = unlimited), as `transfer/set*Limit` does.
    func setGlobalLimit(download: Int? = nil, upload: Int? = nil) async throws {
        let alternative = settings.alternativeSpeed
        var changes: [String: JSONValue] = [:]
        let downloadKey: KeyPath<PreferenceKeys, Preference<Int>> = alternative ? \.altDLLimit : \.dlLimit
        let uploadKey: KeyPath<PreferenceKeys, Preference<Int>> = alternative ? \.altUpLimit : \.upLimit
        if let download { changes[downloadKey] = max(0, download) }
        if let upload { changes[uploadKey] = max(0, upload) }
        try await settings.update(changes)
    }

    /// The current global limits in bytes/s (0 = unlimited).
    nonisolated func globalLimits() -> (download: Int, upload: Int) {
        let s = settings.engineSettings()
        return (s.downloadRateLimit, s.uploadRateLimit)
    }

    func followSpeedSchedule() async {
        guard let wanted = settings.scheduleWantsAlternative(at: Date()) else { return }
        try? await setAlternativeSpeed(wanted)
    }

    // MARK: share limits

    /// Whether any torrent has a share limit of its own, worked out again only after a record changed: walking
    /// every record each five seconds was a third of an idle qbtd's own CPU at 10,000 torrents in a debug build (a
    /// few per cent in release).
    func anyOwnShareLimit() -> Bool {
        if let known = ownShareLimits, known.revision == torrents.revision { return known.any }
        let any = torrents.values.contains { $0.record.hasOwnShareLimit }
        ownShareLimits = (torrents.revision, any)
        return any
    }

    /// qBittorrent's share-limit check: a finished, running torrent that reached its ratio, seeding-time or
    /// inactive-seeding-time limit gets `max_ratio_act` (0 stop, 1 remove, 2 super-seed, 3 remove with files).
    func enforceShareLimits() async {
        let action = settings[\.maxRatioAct]
        let globalMode = settings[\.shareLimitsMode]
        // Only torrents that have a limit can reach one: none at all (the default) costs nothing.
        let categoriesLimit = categoryTable.values.contains { $0.shareLimits.any }
        guard rowSettings.shareLimits.any || anyOwnShareLimit() || categoriesLimit else { return }
        let global = rowSettings.shareLimits
        let board = currentBoard()
        for id in board.order {
            // Tested through the entry, without copying each view.
            guard let entry = board.entries[id], !entry.view.record.stopped, entry.view.status.isFinished else { continue }
            let view = entry.view
            let r = view.record
            // qBittorrent 5.3's effective limits: the torrent's own, else its category's (then the parent's), else
            // the global ones (a category has none before 5.3, so this is 5.1's rule there).
            let category = effectiveCategoryLimits(r.category)
            let ratioLimit = r.ratioLimit != -2 ? r.ratioLimit : category.ratio != -2 ? category.ratio : global.ratio
            let seedingLimit = r.seedingTimeLimit != -2 ? r.seedingTimeLimit
                : category.seedingTime != -2 ? category.seedingTime : global.seedingTime
            let inactiveLimit = r.inactiveSeedingTimeLimit != -2 ? r.inactiveSeedingTimeLimit
                : category.inactiveSeedingTime != -2 ? category.inactiveSeedingTime : global.inactiveSeedingTime
            let ratio = TorrentFigures.ratio(view.status)
            guard ratioLimit >= 0 || seedingLimit >= 0 || inactiveLimit >= 0 else { continue }
            let ratioReached = ratio >= 0 && ratio >= ratioLimit
            let seedingReached = view.status.finishedDuration >= Int64(seedingLimit) * 60
            let inactiveReached = view.status.secondsInactive >= Int64(inactiveLimit) * 60
            // 5.3's modes: any limit that is set reached (MatchAny, the only rule before 5.3), or every one (MatchAll).
            let mode = r.shareLimitsMode ?? (category.mode != "Default" ? category.mode : globalMode)
            let reached = mode == "MatchAll"
                ? (ratioLimit < 0 || ratioReached) && (seedingLimit < 0 || seedingReached) && (inactiveLimit < 0 || inactiveReached)
                : (ratioLimit >= 0 && ratioReached) || (seedingLimit >= 0 && seedingReached) || (inactiveLimit >= 0 && inactiveReached)
            guard reached else { continue }
            // The torrent's own action (5.x), else its category's (5.3), else the global one.
            let own: Int? = switch r.shareLimitAction ?? (category.action != "Default" ? category.action : nil) {
            case "Stop": 0
            case "Remove": 1
            case "EnableSuperSeeding": 2
            case "RemoveWithContent": 3
            default: nil
            }
            switch own ?? action {
            case let chosen where chosen == 1 || chosen == 3:
                log.add("Torrent reached the share limit, removing it. Torrent: \"\(view.name)\"", kind: .info)
                await remove([view.id], deleteFiles: chosen == 3)
            case 2 where !view.record.superSeeding:
                do { try await setSuperSeeding([view.id], true) } catch {
                    logger.error("could not store super-seeding for \(view.id): \(error)")
                }
            case 2:
                break
            default:
                log.add("Torrent reached the share limit, stopping it. Torrent: \"\(view.name)\"", kind: .info)
                do { try await setStopped([view.id], true) } catch {
                    logger.error("could not store the stop of \(view.id): \(error)")
                }
            }
        }
    }

    /// A category's share limits with what it leaves at -2 or "Default" taken from its parent, and so on up.
    func effectiveCategoryLimits(_ name: String?) -> CategoryShareLimits {
        var limits = CategoryShareLimits()
        var current = name ?? ""
        while !current.isEmpty {
            if let own = categoryTable[current]?.shareLimits {
                if limits.ratio == -2 { limits.ratio = own.ratio }
                if limits.seedingTime == -2 { limits.seedingTime = own.seedingTime }
                if limits.inactiveSeedingTime == -2 { limits.inactiveSeedingTime = own.inactiveSeedingTime }
                if limits.action == "Default" { limits.action = own.action }
                if limits.mode == "Default" { limits.mode = own.mode }
            }
            current = Self.parentCategory(current)
        }
        return limits
    }

    // MARK: the whole session paused

    func setSessionPaused(_ paused: Bool) async {
        guard paused != sessionPaused else { return }
        sessionPaused = paused
        await engine.setSessionPaused(paused)
        log.add(paused ? "The session is paused" : "The session is resumed", kind: .info)
    }

    // MARK: transfer figures and bans

    func transfer() async -> SessionControls.Transfer {
        var t = SessionControls.Transfer()
        let board = await freshBoard()
        t.downloadSpeed = board.downloadRate
        t.uploadSpeed = board.uploadRate
        t.downloadedSession = board.sessionDownload
        t.uploadedSession = board.sessionUpload
        t.counters = engine.counters
        t.downloadedSession = max(t.downloadedSession, t.counters.receivedBytes)
        t.uploadedSession = max(t.uploadedSession, t.counters.sentBytes)
        // qBittorrent's Statistics: the stored totals plus what this session moved since they were saved.
        // Never below the stored totals: once the engine is closed (a node's last heartbeat, at its stop) its
        // counters read 0.
        t.downloadedAllTime = allTime.download + max(0, t.counters.receivedBytes - allTime.countedDownload)
        t.uploadedAllTime = allTime.upload + max(0, t.counters.sentBytes - allTime.countedUpload)
        (t.downloadLimit, t.uploadLimit) = globalLimits()
        t.connectionStatus = t.counters.hasIncoming ? "connected" : t.counters.listening ? "firewalled" : "disconnected"
        return t
    }

    /// `transfer()` with the other nodes' torrents' rates (as they last published them, within a second) and the
    /// other nodes' totals (as their last heartbeats told them). One qbtd: `transfer()`.
    func clusterTransfer() async -> SessionControls.Transfer {
        var t = await transfer()
        if remote.revision > 0 {
            _ = await freshListing()
            if let others = remote.merged?.remoteRates {
                t.downloadSpeed &+= others.down
                t.uploadSpeed &+= others.up
            }
        }
        t.downloadedSession &+= remote.totals.sessionDownload
        t.uploadedSession &+= remote.totals.sessionUpload
        t.downloadedAllTime &+= remote.totals.allTimeDownload
        t.uploadedAllTime &+= remote.totals.allTimeUpload
        return t
    }

    /// All-time transfer totals: stored ones, and how much of this session's counters they already hold.
    struct AllTime: Sendable {
        var download: Int64 = 0, upload: Int64 = 0
        var countedDownload: Int64 = 0, countedUpload: Int64 = 0
    }

    func loadStatistics() async {
        allTime.download = await settings.state(.allTimeDownload)?.intValue ?? 0
        allTime.upload = await settings.state(.allTimeUpload)?.intValue ?? 0
    }

    /// Folds the session's new bytes into the stored totals (each minute and at shutdown).
    func saveStatistics() async {
        let counters = engine.counters
        let download = counters.receivedBytes - allTime.countedDownload, upload = counters.sentBytes - allTime.countedUpload
        guard download > 0 || upload > 0 else { return }
        allTime.download += download
        allTime.upload += upload
        allTime.countedDownload = counters.receivedBytes
        allTime.countedUpload = counters.sentBytes
        try? await settings.setState(.allTimeDownload, .int(allTime.download))
        try? await settings.setState(.allTimeUpload, .int(allTime.upload))
    }

    /// The banned addresses: qBittorrent keeps them in its settings (`banned_IPs`, one per line).
    nonisolated var bannedIPs: [String] { settings[\.bannedIPs].split(whereSeparator: \.isNewline).map(String.init) }

    /// Bans each `ip:port` (or bare IP) for good; returns the addresses banned.
    @discardableResult
    func banPeers(_ peers: [String]) async -> [String] {
        var list = bannedIPs
        var banned: [String] = []
        for peer in peers {
            let host = Self.host(ofPeer: peer)
            // Not a peer-log entry: that log records the connections the filter then blocks.
            if await engine.ban(ip: host) {
                banned.append(host)
                if !list.contains(host) { list.append(host) }
            }
        }
        if !banned.isEmpty {
            var change: [String: JSONValue] = [:]
            change[\.bannedIPs] = list.sorted().joined(separator: "\n")
            _ = try? await settings.update(change)
        }
        return banned
    }

    /// `1.2.3.4:5` → `1.2.3.4`, `[::1]:5` → `::1`; a bare address stays as it is.
    static func host(ofPeer peer: String) -> String {
        let p = peer.trimmingCharacters(in: .whitespaces)
        if p.hasPrefix("["), let close = p.firstIndex(of: "]") { return String(p[p.index(after: p.startIndex)..<close]) }
        if p.filter({ $0 == ":" }).count == 1, let colon = p.firstIndex(of: ":") { return String(p[..<colon]) }
        return p
    }
}

/// Figures derived from a status, shared by the API and the share-limit check.
public enum TorrentFigures {
    /// Share ratio as qBittorrent computes it: -1 stands for infinity.
    public static func ratio(_ s: TorrentStatus) -> Double {
        let upload = s.allTimeUpload
        let download = s.allTimeDownload < s.totalDone / 100 ? s.totalDone : s.allTimeDownload
        if download == 0 { return upload == 0 ? 0 : -1 }
        let r = Double(upload) / Double(download)
        return r >= 9999 ? -1 : r
    }
}
