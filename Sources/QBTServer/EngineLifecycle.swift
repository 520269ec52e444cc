import QBTCore
import ServiceLifecycle

/// Ties the torrent engine to the application's lifetime: on graceful shutdown it saves fast-resume data first.
struct EngineLifecycle: Service {
    let service: TorrentService

    func run() async throws {
        try? await gracefulShutdown()
        await service.shutdown()
    }
}
