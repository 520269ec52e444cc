import Foundation

/// What an action answers: qBittorrent's shapes only.
public enum APIReply: Sendable {
    /// 200 with an empty body (qBittorrent ≤5.1's answer for void actions).
    case empty
    case text(String)
    case json(Data)
    /// Extra headers, e.g. the session cookie from `auth/login`.
    indirect case withHeaders(APIReply, [(String, String)])

    public static func encode<T: Encodable>(_ value: T) throws -> APIReply {
        .json(try WireJSON.encoder.encode(value))
    }
}

/// Who is calling, as far as one action needs to know.
public struct APICaller: Sendable {
    public var clientIP: String
    public var sessionID: String?
}

/// One `/api/v2/<scope>/<action>` entry: its method rule and its handler.
public struct APIAction: Sendable {
    public enum Methods: Sendable { case getOrPost, postOnly }
    public var methods: Methods
    public var isPublic: Bool
    public var handler: @Sendable (Parameters, APICaller) async throws -> APIReply

    public static func get(_ handler: @escaping @Sendable (Parameters, APICaller) async throws -> APIReply) -> APIAction {
        APIAction(methods: .getOrPost, isPublic: false, handler: handler)
    }

    public static func post(_ handler: @escaping @Sendable (Parameters, APICaller) async throws -> APIReply) -> APIAction {
        APIAction(methods: .postOnly, isPublic: false, handler: handler)
    }
}

/// A controller is one API scope: a table from action names to actions, as in qBittorrent's `src/webui/api`.
public protocol APIController: Sendable {
    var scope: String { get }
    var actions: [String: APIAction] { get }
}

enum WireJSON {
    /// Compact, and sorted so the bytes are stable for tests and caches.
    static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()
}
