import Foundation
import QBTServer

/// The `buildApplication` that `qbtd` runs, served on 127.0.0.1 (any free port, discovery and uTP off, data in a temp
/// folder) for the length of `body`, then stopped gracefully: the engine saves and shuts down before this returns.
public func withLoopbackServer(password: String, _ body: (_ port: Int) async throws -> Void) async throws {
    try await withLoopbackServer(password: password) { port, _ in try await body(port) }
}

/// The same, with the server's parts (its key ring, its route table) at hand.
public func withLoopbackServer(password: String, _ body: (_ port: Int, _ parts: ServerParts) async throws -> Void) async throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("qbtd-test-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: dir) }
    var config = ServerConfiguration(dataDirectory: dir.path)
    config.port = 0
    config.password = password
    config.peerListen = "127.0.0.1:0"
    config.discovery = false
    config.utp = false
    let (ports, portSink) = AsyncStream<Int>.makeStream()
    let (app, parts) = try await buildApplication(config, onServerRunning: { port, _ in portSink.yield(port) })
    let server = Task { try await app.runService(gracefulShutdownSignals: []) }
    var failure: (any Error)?
    do {
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        try await body(port, parts)
    } catch {
        failure = error
    }
    server.cancel()
    _ = await server.result
    if let failure { throw failure }
}
