import QBTCore
import ServiceLifecycle

/// Ties the torrent engine to the application's lifetime: on graceful shutdown it saves fast-resume data first.
struct EngineLifecycle: Service {
    let service: TorrentService
    /// What stops before the engine (the RSS auto-downloader, which adds torrents).
    var before: @Sendable () async -> Void = {}

    func run() async throws {
        try? await gracefulShutdown()
        await before()
        await service.shutdown()
    }
}
