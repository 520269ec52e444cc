import Foundation
import HTTPKit
import Hummingbird
import HummingbirdWebSocket
import Music
import NIOCore
import NIOWebSocket
import QBTCore
import Synchronization

/// `/music/ws`: the command and event channel. Both sides open with `{"type":"hello","protocolVersion","appVersion"}`
/// (a mismatch is an `error` event and a close); then client commands (`play`, `pause`, `resume`, `next`, `previous`,
/// `seek`, `setVolume`, `toggleShuffle`, `refreshDB`, `state`) and host events (`playbackState`, `dbReady`, `error`).
/// The host sends `{"type":"ping","seq":n}` every 5 s; three unanswered (`{"type":"pong","seq":n}`) and the client is
/// dropped. (WebSocket-level pongs are not visible to an application, so the heartbeat is in the protocol.)
public struct MusicSocket: Sendable {
    let routes: MusicRoutes
    public static let pingInterval: Duration = .seconds(5)
    public static let missedPongs = 3
    /// Clients connected at once; one more is told to come back later (close code 1013) and let go.
    public static let maxClients = 64
    let clients = ClientCount()

    public init(routes: MusicRoutes) { self.routes = routes }

    /// The clients connected now.
    final class ClientCount: Sendable {
        let value = Mutex(0)

        /// Takes a place, or says there is none.
        func enter(max: Int) -> Bool { value.withLock { if $0 >= max { return false }; $0 += 1; return true } }
        func leave() { value.withLock { $0 -= 1 } }
    }

    public func addRoutes(to router: Router<QBTRequestContext>) {
        router.ws("/music/ws", shouldUpgrade: { request, _ in
            // A refused upgrade can only be a 400 (Hummingbird's); a plain GET without a key gets the 401.
            await routes.isAuthorized(request) ? .upgrade([:]) : .dontUpgrade
        }, onUpgrade: { inbound, outbound, _ in
            guard clients.enter(max: Self.maxClients) else {
                try await outbound.write(.text(String(decoding: JSONValue.object([
                    "type": .string("error"),
                    "message": .string("\(Self.maxClients) clients are connected already: try again later"),
                ]).serialized(), as: UTF8.self)))
                try await outbound.close(.init(codeNumber: 1013), reason: "too many clients: try again later")
                return
            }
            defer { clients.leave() }
            try await session(inbound, outbound)
        })
    }

    /// The last ping sent and the last one answered.
    final class Heartbeat: Sendable {
        let seq = Mutex((sent: 0, answered: 0))
    }

    func session(_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter) async throws {
        let host = routes.host, library = routes.library
        let client = UUID()
        func send(_ value: JSONValue) async throws {
            try await outbound.write(.text(String(decoding: value.serialized(), as: UTF8.self)))
        }
        try await send(.object(["type": .string("hello"), "protocolVersion": .int(Int64(MusicHost.protocolVersion)),
                                "appVersion": .string(routes.appVersion)]))
        var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
        // The heartbeat runs from the start: a client that never says hello is dropped like one that stops answering.
        let heartbeat = Heartbeat()
        var greeted = false
        defer { if greeted { Task { await host.disconnect(client) } } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                var seq = 0
                while true {
                    try await Task.sleep(for: Self.pingInterval)
                    if seq - heartbeat.seq.withLock({ $0.answered }) >= Self.missedPongs {
                        try await outbound.close(.goingAway, reason: "ping timeout")
                        return
                    }
                    seq += 1
                    heartbeat.seq.withLock { $0.sent = seq }
                    try await send(.object(["type": .string("ping"), "seq": .int(Int64(seq))]))
                }
            }
            // The client's messages, read here: when it leaves, or the heartbeat closes the socket, the session ends.
            while let message = try await messages.next() {
                guard greeted else {
                    if let reason = try await greet(message, send) { try await outbound.close(.policyViolation, reason: reason); break }
                    greeted = true
                    await host.connect(client)
                    group.addTask {
                        for await version in await library.changes() {
                            try await send(.object(["type": .string("dbReady"), "libraryVersion": .int(Int64(version))]))
                        }
                    }
                    continue
                }
                guard case .text(let text) = message, let command = Self.object(text) else {
                    try await send(.object(["type": .string("error"), "message": .string("send JSON objects as text")]))
                    continue
                }
                switch command["type"] as? String {
                case "pong":
                    let seq = (command["seq"] as? NSNumber)?.intValue ?? 0
                    heartbeat.seq.withLock { $0.answered = max($0.answered, min(seq, $0.sent)) }
                case "hello":
                    break
                case "refreshDB":
                    // Always answered with dbReady: a scan that changed nothing announces the version it left.
                    Task {
                        let before = await library.version
                        await library.scan()
                        let after = await library.version
                        if after == before { try? await send(.object(["type": .string("dbReady"), "libraryVersion": .int(Int64(after))])) }
                    }
                default:
                    do {
                        let state = try await host.apply(client, command)
                        try await send(.object(["type": .string("playbackState"), "state": Self.json(state)]))
                    } catch let failure as MusicHost.Failure {
                        try await send(.object(["type": .string("error"), "message": .string(failure.description)]))
                    }
                }
            }
            group.cancelAll()
        }
    }

    /// The client's first message must be a hello in this protocol's version: nil when it is, else the reason the
    /// socket closes (the error event already sent).
    func greet(_ message: WebSocketMessage, _ send: (JSONValue) async throws -> Void) async throws -> String? {
        guard case .text(let text) = message, let hello = Self.object(text),
              let version = (hello["protocolVersion"] as? NSNumber)?.intValue else {
            try await send(.object(["type": .string("error"), "message": .string("open with {\"type\":\"hello\",\"protocolVersion\":\(MusicHost.protocolVersion),\"appVersion\":…}")]))
            return "no hello"
        }
        guard version == MusicHost.protocolVersion else {
            try await send(.object(["type": .string("error"),
                                    "message": .string("protocol version \(version) is not supported: this server speaks \(MusicHost.protocolVersion)")]))
            return "protocol version mismatch"
        }
        return nil
    }

    static func object(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    static func json(_ s: MusicHost.PlaybackState) -> JSONValue {
        .object([
            "trackId": s.trackId.map { .int($0) } ?? .null, "queueIds": .array(s.queueIds.map { .int($0) }),
            "playing": .bool(s.playing), "position": .double(s.position), "volume": .double(s.volume), "shuffle": .bool(s.shuffle),
        ])
    }
}
