import ServiceLifecycle
import Tunnel

/// Keeps `--tunnel`'s cloudflared running while qbtd runs, and stops it when qbtd stops.
struct TunnelLifecycle: Service {
    let tunnel: CloudflaredTunnel

    func run() async throws {
        let running = Task { await tunnel.run() }
        try? await gracefulShutdown()
        await tunnel.stop()
        await running.value
    }
}
