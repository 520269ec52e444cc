import HTTPKit
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import NIOWebSocket
import WebAPI

/// `GET /api/v2/qbtd/events/ws`: the event stream of `EventStreamRoutes` over a WebSocket, for clients that keep one
/// socket: each text message is the JSON of one event (a `sync/maindata` answer); `?rid=` resumes. A client that fell
/// too far behind is sent `{"error": …, "dropped": true}` and a close (1013, try again later). The upgrade is
/// authenticated as the API is (the session cookie, or `Authorization: Bearer`); refused, it answers 400 (how
/// Hummingbird refuses an upgrade; the same path without one says 403 or 426).
public struct EventSocket: Sendable {
    let api: APIRouter
    let feed: MainDataFeed

    public static let path = EventStreamRoutes.path + "/ws"

    public init(api: APIRouter, feed: MainDataFeed) {
        self.api = api
        self.feed = feed
    }

    public func addRoutes(to router: Router<QBTRequestContext>) {
        router.ws(RouterPath(Self.path), shouldUpgrade: { request, context in
            _ = try await api.authorized(request, context, area: EventStreamRoutes.area)
            _ = try EventStreamRoutes.resumeRID(request)
            return .upgrade([:])
        }, onUpgrade: { inbound, outbound, context in
            let resume = (try? EventStreamRoutes.resumeRID(context.request)) ?? 0
            try await session(from: resume, inbound, outbound)
        })
    }

    func session(from resume: Int, _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            // The client's frames are read (and dropped) only to see it leave; its leaving ends the session (the
            // follower's task is cancelled, which ends its place in the feed).
            group.addTask {
                for try await _ in inbound {}
            }
            group.addTask { [feed] in
                let ending = try await FeedFollower(feed: feed).follow(from: resume, send: { _, json in
                    try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .text, data: json)))
                }, quiet: {}, dropped: {
                    try await outbound.write(.text(PushRID.droppedSocketJSON))
                    try await outbound.close(.init(codeNumber: 1013), reason: "fell behind: reconnect")
                })
                if ending == .ended { try? await outbound.close(.goingAway, reason: "server stopping") }
            }
            try await group.next()
            group.cancelAll()
        }
    }
}
