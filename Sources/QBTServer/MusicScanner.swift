import Music
import ServiceLifecycle

/// Scans the music folders at start and then on a timer (a `refreshDB` command scans at once).
struct MusicScanner: Service {
    let library: MusicLibrary
    let interval: Duration

    func run() async throws {
        // A service that returns ends the whole server: with nothing to scan, this one waits for the shutdown.
        guard !library.configuration.directories.isEmpty else { return try await gracefulShutdown() }
        while !Task.isShuttingDownGracefully {
            await library.scan()
            do { try await cancelOnGracefulShutdown { try await Task.sleep(for: interval) } } catch { return }
        }
    }
}
