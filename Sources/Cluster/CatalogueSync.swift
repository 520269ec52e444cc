import Logging
import QBTCore
import Store

/// The cluster's shared settings on this node: its categories and tags read again, and its preferences taken and
/// applied, each time another node changes them.
public struct CatalogueSync: Sendable {
    let registry: any NodeRegistry
    let service: TorrentService
    let settings: ServerSettings
    let logger: Logger

    public init(registry: any NodeRegistry, service: TorrentService, settings: ServerSettings, logger: Logger) {
        self.registry = registry
        self.service = service
        self.settings = settings
        self.logger = logger
    }

    /// Until cancelled.
    public func follow() async {
        await withDiscardingTaskGroup { group in
            group.addTask { for await _ in registry.labelChanges() { await service.reloadLabels() } }
            group.addTask {
                for await _ in registry.preferenceChanges() {
                    do { try await settings.adoptStored() } catch {
                        logger.warning("preferences another node changed are not all applied here: \(error)")
                    }
                }
            }
        }
    }
}
