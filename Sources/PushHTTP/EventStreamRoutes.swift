import Foundation
import HTTPKit
import HTTPTypes
import Hummingbird
import NIOCore
import QBTCore
import WebAPI

/// `GET /api/v2/qbtd/events`: `sync/maindata` as Server-Sent Events. Each event is `id: <rid>`, `event: maindata` and
/// one line of the JSON `sync/maindata` would answer (its `rid` is the id); the first is a diff from `Last-Event-ID`
/// (or `?rid=`) when the feed still holds that number, else a full update; then one whenever something changed, at
/// most four a second; `: keepalive` after 15 s of quiet. A client that fell too far behind gets `event: dropped` and
/// the stream ends (an `EventSource` reconnects by itself). Authenticated as the API is; a key must reach
/// `sync/maindata`.
public struct EventStreamRoutes: Sendable {
    let api: APIRouter
    let feed: MainDataFeed

    public static let path = "/api/v2/qbtd/events"
    static let keepalive: Duration = .seconds(15)
    /// What a scoped key must reach: reading `sync/maindata`.
    static let area = APIKeyScope.Area.api(group: "sync", action: "maindata", readOnly: true)

    public init(api: APIRouter, feed: MainDataFeed) {
        self.api = api
        self.feed = feed
    }

    public func addRoutes(to router: Router<QBTRequestContext>) {
        router.get(RouterPath(Self.path)) { request, context in
            await api.admitted(request, context, area: Self.area) { _ in
                let resume = try Self.resumeRID(request)
                var headers = HTTPFields()
                headers[.contentType] = "text/event-stream"
                headers[.cacheControl] = "no-cache"
                headers[HTTPField.Name("X-Accel-Buffering")!] = "no"  // nginx in front: pass events on at once
                return Response(status: .ok, headers: headers, body: ResponseBody { writer in
                    try await stream(from: resume, into: &writer)
                })
            }
        }
        addPlainSocketPath(to: router)
    }

    /// The WebSocket's path without an upgrade (the upgrade goes to the sockets' router): 426 once admitted.
    func addPlainSocketPath(to router: Router<QBTRequestContext>) {
        router.get(RouterPath(EventSocket.path)) { request, context in
            await api.admitted(request, context, area: Self.area) { _ in throw HTTPRefusal(.upgradeRequired, "open a WebSocket here") }
        }
    }

    /// The rid a client resumes from: `Last-Event-ID` (what an `EventSource` sends back), else `rid`; 0 for none.
    static func resumeRID(_ request: Request) throws -> Int {
        if let last = request.headers[HTTPField.Name("Last-Event-ID")!] {
            return PushRID.parse(last) ?? 0  // not one of ours: a full update
        }
        guard let text = request.uri.queryParameters["rid"].map(String.init) else { return 0 }
        guard let rid = PushRID.parse(text) else { throw HTTPRefusal(.badRequest, "rid must be a whole number from 0 to \(PushRID.maximum)") }
        return rid
    }

    func stream(from resume: Int, into writer: inout any ResponseBodyWriter) async throws {
        try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
        var lastWrite = ContinuousClock.now
        try await FeedFollower(feed: feed, nudgeEvery: Self.keepalive).follow(from: resume, send: { rid, json in
            try await writer.write(contentsOf: [ByteBuffer(string: "id: \(rid)\nevent: maindata\ndata: "), json, Self.end])
            lastWrite = .now
        }, quiet: {
            guard ContinuousClock.now - lastWrite >= Self.keepalive - .seconds(1) else { return }
            try await writer.write(ByteBuffer(string: ": keepalive\n\n"))
            lastWrite = .now
        }, dropped: {
            try await writer.write(ByteBuffer(string: "event: dropped\ndata: \(PushRID.droppedJSON)\n\n"))
        })
        try await writer.finish(nil)
    }

    static let end = ByteBuffer(string: "\n\n")
}

/// The numbers the feed gives its events, as clients send them back.
enum PushRID {
    static let maximum = 1_000_000

    static func parse(_ text: some StringProtocol) -> Int? {
        guard let n = Int(text.trimmingCharacters(in: .whitespaces)), (0...maximum).contains(n) else { return nil }
        return n
    }

    /// What a client that fell behind is told, before its stream ends.
    static let behind = "this client fell more than \(MainDataFeed.held) events behind: reconnect, resuming from the last rid it applied"
    static let droppedJSON = #"{"error":"\#(behind)"}"#
    static let droppedSocketJSON = #"{"dropped":true,"error":"\#(behind)"}"#
}
