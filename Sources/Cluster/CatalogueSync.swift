import Logging
import QBTCore
import Store

/// The cluster's shared settings on this node, each time another node changes them: its categories and tags read
/// again, its preferences taken and applied (the WebUI's username and password with them), its API keys read again.
public struct CatalogueSync: Sendable {
    let registry: any NodeRegistry
    let service: TorrentService
    let settings: ServerSettings
    let credentials: Credentials
    let keys: APIKeyRing
    let logger: Logger
    /// The preferences read again for a client's call (`preferencesNow`) or a notification, one read at a time.
    let preferenceReads: FreshReads
    /// The categories and tags read again for a client's call (`labelsNow`) or a notification, one read at a time
    /// (two at once could apply the older read over the newer: a category removed a moment ago listed again).
    let labelReads: FreshReads

    public init(registry: any NodeRegistry, service: TorrentService, settings: ServerSettings, credentials: Credentials,
                keys: APIKeyRing, logger: Logger) {
        self.registry = registry
        self.service = service
        self.settings = settings
        self.credentials = credentials
        self.keys = keys
        self.logger = logger
        preferenceReads = FreshReads { [settings, credentials, logger] in
            try await Self.takePreferences(settings: settings, credentials: credentials, logger: logger)
        }
        labelReads = FreshReads { [service] in try await service.reloadLabels() }
    }

    /// Takes the categories and tags as the catalogue has them now, waiting at most `limit`: a call that names or
    /// changes them sees a category another node made or removed a moment ago.
    public func labelsNow(within limit: Duration) async { await labelReads.fresh(within: limit) }

    /// Takes the preferences (and the state, the credentials) as the catalogue has them now, waiting at most `limit`:
    /// a call that reads them, or changes them from what they are (a toggle, a list added to), sees what another node
    /// acknowledged a moment ago.
    public func preferencesNow(within limit: Duration) async { await preferenceReads.fresh(within: limit) }

    static func takePreferences(settings: ServerSettings, credentials: Credentials, logger: Logger) async throws {
        let adopted = try await settings.adoptStored()
        try await credentials.reload()
        if !adopted.leftOut.isEmpty {
            logger.warning("""
                preferences another node set are not applied here, as this node refused them: \
                \(adopted.leftOut.sorted().joined(separator: ", ")) (see this node's log for why); they \
                are tried again at the next change
                """)
        }
    }

    /// How long after a read that failed (the catalogue out of reach) it is tried again.
    static let retryEvery: Duration = .seconds(2)

    /// Until cancelled.
    public func follow() async {
        await withDiscardingTaskGroup { group in
            group.addTask {
                await keepReading(registry.labelChanges(), "the categories and tags") { try await labelReads.fresh() }
            }
            group.addTask {
                await keepReading(registry.preferenceChanges(), "preferences") { try await preferenceReads.fresh() }
            }
            group.addTask { await keepReading(registry.keyChanges(), "API keys") { try await keys.reload() } }
        }
    }

    /// Runs `read` at each wake and, after one that failed (the catalogue out of reach), again every `retryEvery`
    /// until one succeeds: a change another node made while this node could not read it (`what`) is taken once it
    /// can. Wakes that come meanwhile are one more read after it.
    func keepReading(_ wakes: AsyncStream<Void>, _ what: String, _ read: @escaping @Sendable () async throws -> Void) async {
        let (pending, pend) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let forward = Task {
            for await _ in wakes { pend.yield() }
            pend.finish()
        }
        defer { forward.cancel() }
        for await _ in pending {
            while !Task.isCancelled {
                do {
                    try await read()
                    break
                } catch {
                    logger.warning("\(what) another node changed are not all taken here yet (again in \(Self.retryEvery)): \(error)")
                }
                try? await Task.sleep(for: Self.retryEvery)
            }
        }
    }
}
