import Music
import ServiceLifecycle

/// Scans the music folders at start and then on a timer (a `refreshDB` command scans at once).
struct MusicScanner: Service {
    let library: MusicLibrary
    let interval: Duration

    // A service that returns ends the whole server: this one runs until the shutdown, folders or not.
    func run() async throws {
        while !Task.isShuttingDownGracefully {
            if await !library.directories.isEmpty { await library.scan() }
            do { try await cancelOnGracefulShutdown { try await Task.sleep(for: interval) } } catch { return }
        }
    }
}
