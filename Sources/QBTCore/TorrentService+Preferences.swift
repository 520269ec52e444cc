import Foundation
import TorrentEngine

/// What the torrent service applies when preferences change, registered once it is up (`followPreferences`) and run
/// by `ServerSettings.update` in the appliers' order: the engine's settings, watched folders and the tracker list,
/// the queue, share and connection limits, the IP filter, placement and paths.
extension TorrentService {
    /// Every key `ServerSettings.engineSettings()` reads: a change of any applies libtorrent's settings again
    /// (ServerSettingsTests checks that no other key changes them).
    static let engineKeys = PreferenceCatalogue.keys(appliedBy: [.engine, .queue, .networkBinding])
        .union(PreferenceKeys.names(\.ipFilterEnabled))

    /// Preferences that change the way to peers: after them, peers that failed by the old way are tried anew.
    static let routeKeys = PreferenceKeys.names(
        \.currentNetworkInterface, \.currentInterfaceAddress, \.proxyType, \.proxyIP, \.proxyPort, \.proxyAuthEnabled,
        \.proxyUsername, \.proxyPassword, \.proxyPeerConnections, \.proxyBitTorrent, \.proxyHostnameLookup)

    func followPreferences() -> [PreferenceSubscription] {
        [
            settings.beforeChange(.automation, keys: PreferenceKeys.names(\.scanDirs)) { [paths, log] request in
                for reason in WatchedFolder.list(request.asked(\.scanDirs), paths: paths).rejected {
                    log.add("Watched folder not taken: \(reason)", kind: .warning)
                }
            },
            settings.onChange(.engine, keys: Self.engineKeys) { [weak self] change in try await self?.applyEngineSettings(change) },
            // In a cluster, another node switched to or from the alternative limits (`ServerSettings.adoptStored`).
            settings.onChange(.engine, keys: [StateKey.alternativeSpeed.name]) { [weak self] _ in
                guard let self else { return }
                try await engine.apply(settings.appliedEngineSettings())
            },
            settings.onChange(.automation) { [weak self] change in await self?.applyAutomation(change) },
            settings.onChange(.queue) { [weak self] _ in await self?.applyQueueing() },
            settings.onChange(.shareLimits) { [weak self] _ in await self?.applyShareLimits() },
            settings.onChange(.torrentLimits) { [weak self] _ in await self?.applyConnectionLimits() },
            settings.onChange(.ipFilter) { [weak self] change in
                await self?.applyIPFilter(reload: change.changed(\.ipFilterEnabled, \.ipFilterPath))
            },
            settings.onChange(.placement) { [weak self] change in await self?.applyPlacement(change) },
            settings.onChange(.paths) { [weak self] change in try await self?.applyPaths(change) },
        ]
    }

    private func applyEngineSettings(_ change: PreferenceChange) async throws {
        try await engine.apply(settings.appliedEngineSettings())
        if change.changed(\.currentNetworkInterface, \.currentInterfaceAddress, \.listenPort) { logNetworkBinding() }
        if change.changed(anyOf: Self.routeKeys) { await engine.resetPeers() }
    }

    private func applyAutomation(_ change: PreferenceChange) async {
        if change.changed(\.scanDirs) { await configureWatchedFolders() }
        if change.changed(\.addTrackersFromURLEnabled, \.addTrackersURL) { await configureTrackerList() }
    }

    private func applyQueueing() { rowSettings.queueingEnabled = settings[\.queueingEnabled] }

    private func applyShareLimits() { rowSettings.shareLimits = ShareLimits(settings.current) }

    private func applyConnectionLimits() async {
        let (connections, uploads) = connectionLimits()
        for id in torrents.ids { try? await engine.setConnectionLimits(id, connections: connections, uploads: uploads) }
    }

    private func applyPlacement(_ change: PreferenceChange) async {
        if change.changed(\.useSubcategories), subcategoriesEnabled { await expandCategories() }
        if change.changed(\.incompleteFilesExt) { await markIncompleteFiles(torrents.ids, preferenceChanged: true) }
    }

    private func applyPaths(_ change: PreferenceChange) async throws {
        if change.changed(\.tempPathEnabled) {
            // qBittorrent relocates every automatic torrent (nothing switches to manual mode).
            for (id, stored) in torrents where stored.record.autoTMM { try await relocateManaged(id) }
        }
        if change.changed(\.tempPath) {
            // Like save_path below: the automatic torrents whose download path follows the global one move, or are
            // switched to manual mode where they are.
            let follow = settings[\.savePathChangedTMMEnabled]
            for (id, stored) in torrents where stored.record.autoTMM {
                if follow { try await relocateManaged(id) }
                else if await categoryDownloadPathFollowsGlobal(stored.record.category) { try await update(id) { $0.autoTMM = false } }
            }
        }
        if change.changed(\.savePath) {
            // qBittorrent's save_path_changed_tmm_enabled: move the automatic torrents that follow the default save
            // path, or (its default) switch them to manual mode where they are.
            let follow = settings[\.savePathChangedTMMEnabled]
            for (id, stored) in torrents where stored.record.autoTMM {
                if follow { try await relocateManaged(id) }
                else if categoryFollowsDefaultPath(stored.record.category) { try await update(id) { $0.autoTMM = false } }
            }
        }
    }
}
