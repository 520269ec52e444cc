import NIOCore
import ServiceLifecycle
import WebAPI

/// One client following the feed, whatever carries its events (Server-Sent Events or a WebSocket): from the rid it
/// resumes at, each answer the feed has for it, until it fell behind, its task is cancelled (the client left) or the
/// server stops. Its place in the feed is left in every case.
struct FeedFollower {
    let feed: MainDataFeed
    /// How often the client is woken while nothing happens (nil: never), so `quiet` can show it is still there.
    var nudgeEvery: Duration?

    enum Ending { case droppedBehind, ended }

    /// `send` gets each event (its rid and JSON); `quiet` a wake-up with nothing new; `dropped` the client that fell
    /// behind, after which following ends. Returns why it ended.
    @discardableResult
    func follow(from resume: Int, send: (Int, ByteBuffer) async throws -> Void, quiet: () async throws -> Void,
                dropped: () async throws -> Void) async throws -> Ending {
        let (id, updates) = await feed.listen()
        let pulse = nudgeEvery.map { every in
            Task { [feed] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: every)
                    await feed.nudge(id)
                }
            }
        }
        defer {
            pulse?.cancel()
            Task { [feed] in await feed.leave(id) }
        }
        var sent = resume, resuming = true
        return try await withGracefulShutdownHandler {
            for await _ in updates {
                switch await feed.answer(from: sent, resuming: resuming) {
                case .update(let rid, let json):
                    try await send(rid, json)
                    sent = rid
                    resuming = false
                case .current:
                    try await quiet()
                case .behind:
                    try await dropped()
                    return .droppedBehind
                }
            }
            return .ended
        } onGracefulShutdown: {
            Task { [feed] in await feed.leave(id) }
        }
    }
}
