import Foundation
import QBTCore

/// What an action answers: qBittorrent's shapes only.
public enum APIReply: Sendable {
    /// 200 with an empty body: what a void action answers in every profile.
    case empty
    /// A void action 5.2 answers with 204 (the few that set no result at all); 200 with an empty body before 5.2.
    case done
    case text(String)
    case json(Data)
    /// JSON from the fast serializer.
    case jsonBytes([UInt8])
    /// JSON too big to hold whole, sent a part at a time as it is made (listings of a big library).
    case jsonParts(JSONParts)
    /// A file download (`torrents/export`).
    case binary([UInt8], contentType: String, filename: String?)
    /// An explicit status with a plain-text body (5.2's 204/401 login answers).
    case status(Int, String)
    /// Extra headers, e.g. the session cookie from `auth/login`.
    indirect case withHeaders(APIReply, [(String, String)])
    /// A file's bytes with one Range at most (5.3's `torrents/downloadFile`).
    case file(FileAnswer)
    /// 5.2's `APIStatus::Async`: 202 with a JSON body (work under way; ask again).
    case accepted(JSONValue)

    public static func encode<T: Encodable>(_ value: T) throws -> APIReply {
        .json(try WireJSON.encoder.encode(value))
    }

    public static func json(_ value: JSONValue) -> APIReply { .jsonBytes(value.serialized()) }
}

/// Who is calling, as far as one action needs to know.
public struct APICaller: Sendable {
    public var clientIP: String
    public var sessionID: String?
    /// The caller's `sync/*` memory: its session's, or its API key's.
    public var sync: SessionMemory?
    /// The port this request came in on (5.2's cookie is named after it).
    public var localPort: Int
    /// The API key that authenticated the request, if any, and what it may reach.
    public var apiKeyID: String?
    public var keyScope: APIKeyScope?
    /// The `Host` the client used (for URLs handed back to it): a trusted reverse proxy's `X-Forwarded-Host`.
    public var host: String?
    /// The path a trusted reverse proxy serves qbtd under (`X-Forwarded-Prefix: /qbittorrent`), "" at the root:
    /// paths handed back to the client start with it.
    public var pathPrefix = ""
    /// HTTPS, or a trusted reverse proxy that says the client used HTTPS (the cookie may be `secure`).
    public var trustworthyOrigin = false

    public init(clientIP: String, sessionID: String? = nil, sync: SessionMemory? = nil, localPort: Int = 0, apiKeyID: String? = nil) {
        self.clientIP = clientIP
        self.sessionID = sessionID
        self.sync = sync
        self.localPort = localPort
        self.apiKeyID = apiKeyID
    }
}

/// One `/api/v2/<scope>/<action>` entry: its method rule and its handler.
public struct APIAction: Sendable {
    public enum Methods: Sendable { case getOrPost, postOnly }
    public var methods: Methods
    public var isPublic: Bool
    /// qbtd's own routes answer errors as `{"error": "…"}`; qBittorrent's answer plain text.
    public var jsonErrors = false
    public var handler: @Sendable (Parameters, APICaller) async throws -> APIReply
    /// The first release that has the action: profiles before it answer 404, as those releases do.
    public var since: Identity.Profile = .v4_6

    public static func get(_ handler: @escaping @Sendable (Parameters, APICaller) async throws -> APIReply) -> APIAction {
        APIAction(methods: .getOrPost, isPublic: false, handler: handler)
    }

    public static func post(_ handler: @escaping @Sendable (Parameters, APICaller) async throws -> APIReply) -> APIAction {
        APIAction(methods: .postOnly, isPublic: false, handler: handler)
    }

    /// qbtd's own actions: errors as JSON.
    public static func qbtd(_ methods: Methods, _ handler: @escaping @Sendable (Parameters, APICaller) async throws -> APIReply) -> APIAction {
        APIAction(methods: methods, isPublic: false, jsonErrors: true, handler: handler)
    }

    public init(methods: Methods, isPublic: Bool, jsonErrors: Bool = false,
                handler: @escaping @Sendable (Parameters, APICaller) async throws -> APIReply) {
        self.methods = methods
        self.isPublic = isPublic
        self.jsonErrors = jsonErrors
        self.handler = handler
    }
}

extension APIAction {
    /// The action from `profile` on.
    public func since(_ profile: Identity.Profile) -> APIAction {
        var action = self
        action.since = profile
        return action
    }
}

/// A controller is one API scope: a table from action names to actions, as in qBittorrent's `src/webui/api`.
public protocol APIController: Sendable {
    var scope: String { get }
    var actions: [String: APIAction] { get }
}

package enum WireJSON {
    /// Compact, and sorted so the bytes are stable for tests and caches.
    package static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()
}
