import ServiceLifecycle
import Uploads

/// Removes expired tus uploads every minute while the server runs.
struct UploadSweeper: Service {
    let tus: TusService

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do { try await cancelOnGracefulShutdown { try await Task.sleep(for: .seconds(60)) } } catch { return }
            await tus.sweep()
        }
    }
}
