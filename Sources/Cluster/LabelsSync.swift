import QBTCore
import Store

/// The cluster's categories and tags on this node: read again each time another node changes them.
public struct LabelsSync: Sendable {
    let registry: any NodeRegistry
    let service: TorrentService

    public init(registry: any NodeRegistry, service: TorrentService) {
        self.registry = registry
        self.service = service
    }

    /// Until cancelled.
    public func follow() async {
        for await _ in registry.labelChanges() { await service.reloadLabels() }
    }
}
