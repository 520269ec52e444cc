import QBTCore
import Uploads

extension Destinations {
    /// With the categories' save paths as they are now.
    static func current(_ configuration: UploadConfiguration, _ service: TorrentService) async -> Destinations {
        Destinations(configuration: configuration, categories: await service.labels.categorySavePaths())
    }
}
