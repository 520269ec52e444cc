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

    public init(registry: any NodeRegistry, service: TorrentService, settings: ServerSettings, credentials: Credentials,
                keys: APIKeyRing, logger: Logger) {
        self.registry = registry
        self.service = service
        self.settings = settings
        self.credentials = credentials
        self.keys = keys
        self.logger = logger
    }

    /// Until cancelled.
    public func follow() async {
        await withDiscardingTaskGroup { group in
            group.addTask { for await _ in registry.labelChanges() { await service.reloadLabels() } }
            group.addTask {
                for await _ in registry.preferenceChanges() {
                    do {
                        try await settings.adoptStored()
                        try await credentials.reload()
                    } catch {
                        logger.warning("preferences another node changed are not all applied here: \(error)")
                    }
                }
            }
            group.addTask {
                for await _ in registry.keyChanges() {
                    do { try await keys.reload() } catch {
                        logger.warning("API keys another node changed are not read here yet (at the next change): \(error)")
                    }
                }
            }
        }
    }
}
