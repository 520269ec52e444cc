import Foundation
import HTTPFetch

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a request proves who it is: qBittorrent's session cookie, a qbtd API key, or nothing (an open server).
public enum Credential: Sendable, Equatable, Codable {
    case none
    /// The whole cookie pair as the server set it (`SID=…`, or `QBT_SID_8080=…` in 5.2).
    case cookie(String)
    case apiKey(String)
}

/// A typed client for qBittorrent's WebAPI v2 and qbtd's extensions. It speaks both dialects: the server's WebAPI
/// version (asked once) decides between 4.x's `pause`/`resume` and 5.x's `stop`/`start`, `paused` and `stopped`.
public actor QBTClient {
    public nonisolated let baseURL: URL
    public private(set) var credential: Credential
    /// A PEM file of CA certificates that HTTPS servers are checked against instead of the system's.
    public nonisolated let caFile: String?
    private let timeout: TimeInterval
    private var cachedAPIVersion: APIVersion?

    public init(baseURL: URL, credential: Credential = .none, timeout: TimeInterval = 30, caFile: String? = nil) {
        self.baseURL = baseURL
        self.credential = credential
        self.timeout = timeout
        self.caFile = caFile
    }

    /// `http://host:port` with or without a trailing slash or `/api/v2`; the scheme defaults to http.
    public static func parseURL(_ text: String) throws -> URL {
        var text = text.trimmingCharacters(in: .whitespaces)
        if !text.contains("://") { text = "http://" + text }
        while text.hasSuffix("/") { text.removeLast() }
        if text.hasSuffix("/api/v2") { text.removeLast("/api/v2".count) }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty
        else { throw QBTClientError.invalidInput("not a server URL: \(text) (expected e.g. http://127.0.0.1:8080)") }
        return url
    }

    // MARK: Requests

    public struct Response: Sendable {
        public let status: Int
        public let body: Data
        public let headers: [String: String]
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public enum Body: Sendable {
        case form([(String, String)])
        case multipart(MultipartForm)
    }

    /// One API call. `path` is relative to `/api/v2/` unless it starts with `/`. Maps 401/403/404/409/400 to errors.
    @discardableResult
    public func call(_ path: String, query: [(String, String)] = [], _ body: Body? = nil) async throws -> Response {
        try checked(try await send(path, query: query, body), path)
    }

    /// The one mapping of statuses to errors: 2xx passes; `special` may name the error for a status first.
    public func checked(_ response: Response, _ path: String,
                        special: (_ status: Int) -> QBTClientError? = { _ in nil }) throws -> Response {
        if !(200..<300).contains(response.status), let error = special(response.status) { throw error }
        switch response.status {
        case 200..<300: return response
        case 403 where response.text.contains("API key's scope"): throw QBTClientError.outOfScope(Self.message(response, or: "out of scope"))
        case 401, 403: throw QBTClientError.forbidden(url: baseURL.absoluteString)
        case 404: throw QBTClientError.notFound(Self.message(response, or: "not found: \(path)"))
        case 409: throw QBTClientError.conflict(Self.message(response, or: "the server refused: \(path)"))
        case 400, 415: throw QBTClientError.badRequest(Self.message(response, or: "bad request: \(path)"))
        case 405: throw QBTClientError.unsupported("the server does not offer \(path) this way (405)")
        default: throw QBTClientError.server(status: response.status, body: response.text)
        }
    }

    /// The call's body decoded as JSON into `T`.
    public func get<T: Decodable>(_ type: T.Type, _ path: String, query: [(String, String)] = [], _ body: Body? = nil) async throws -> T {
        let response = try await call(path, query: query, body)
        do { return try JSONDecoder().decode(T.self, from: response.body) } catch {
            throw QBTClientError.badResponse("\(path): \(error)")
        }
    }

    /// The call's body as untyped JSON (for `--json` output and the sync diffs).
    public nonisolated func json(_ path: String, query: [(String, String)] = [], _ body: Body? = nil) async throws -> Any {
        let response = try await call(path, query: query, body)
        do { return try JSONSerialization.jsonObject(with: response.body, options: [.fragmentsAllowed]) } catch {
            throw QBTClientError.badResponse("\(path) did not answer JSON")
        }
    }

    /// Calls the server may hold longer than the usual timeout: `stream/prepare` waits for a magnet's metadata
    /// (qbtd's `--stream-metadata-timeout`, 60 s by default).
    static let slowCalls: [String: TimeInterval] = ["stream/prepare": 300]

    /// The raw exchange, without mapping statuses to errors.
    public func send(_ path: String, query: [(String, String)] = [], _ body: Body? = nil) async throws -> Response {
        var components = URLComponents(url: endpoint(path), resolvingAgainstBaseURL: false)!
        if !query.isEmpty { components.percentEncodedQuery = FormEncoding.encode(query) }
        var request = URLRequest(url: components.url!)
        request.timeoutInterval = Self.slowCalls[path] ?? timeout
        authorize(&request)
        switch body {
        case nil: request.httpMethod = "GET"
        case .form(let fields):
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(FormEncoding.encode(fields).utf8)
        case .multipart(let form):
            request.httpMethod = "POST"
            request.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
            request.httpBody = form.body
        }
        return try await perform(request)
    }

    /// Any method with raw headers and body (tus speaks HEAD and PATCH with its own headers).
    public func raw(_ method: String, _ path: String, headers: [String: String] = [:], body: Data? = nil) async throws -> Response {
        var request = URLRequest(url: endpoint(path))
        request.timeoutInterval = timeout
        request.httpMethod = method
        authorize(&request)
        for (key, value) in headers { request.setValue(value, forHTTPHeaderField: key) }
        request.httpBody = body
        return try await perform(request)
    }

    /// The credential on the request: the session cookie or the API key.
    private func authorize(_ request: inout URLRequest) {
        switch credential {
        case .none: break
        case .cookie(let pair): request.setValue(pair, forHTTPHeaderField: "Cookie")
        case .apiKey(let key): request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        }
    }

    func endpoint(_ path: String) -> URL {
        if path.hasPrefix("http://") || path.hasPrefix("https://"), let url = URL(string: path) { return url }
        let full = path.hasPrefix("/") ? path : "/api/v2/" + path
        return URL(string: baseURL.absoluteString + full)!
    }

    /// One exchange through libcurl (HTTPFetch): no cookies kept, no redirects followed.
    private func perform(_ request: URLRequest) async throws -> Response {
        let url = baseURL.absoluteString
        let seconds = Int(request.timeoutInterval.rounded(.up))
        let exchange = HTTPExchange.Request(
            method: request.httpMethod ?? "GET", url: request.url!.absoluteString,
            headers: (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            body: request.httpBody, timeout: seconds, caFile: caFile)
        do {
            let answer = try await HTTPExchange.perform(exchange)
            return Response(status: answer.status, body: answer.body, headers: answer.headers)
        } catch HTTPExchange.Failure.timedOut {
            throw QBTClientError.timedOut(url: url, seconds: seconds)
        } catch HTTPExchange.Failure.transport(let reason) {
            throw QBTClientError.unreachable(url: url, reason: reason)
        }
    }

    public static func message(_ response: Response, or fallback: String) -> String {
        if let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any],
           let error = object["error"] as? String { return error }
        let text = response.text.trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? fallback : text
    }

    // MARK: Authentication

    /// `auth/login`; keeps the session cookie. Accepts 4.x's `Ok.` and 5.2's 204.
    public func login(username: String, password: String) async throws {
        let response = try await send("auth/login", .form([("username", username), ("password", password)]))
        // The session cookie among any others (a proxy may set its own): `SID` (≤5.1) or `QBT_SID_<port>` (5.2).
        let cookies = (response.headers["set-cookie"] ?? "").split(separator: "\n")
            .compactMap { $0.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } }
        let cookie = cookies.first { $0.hasPrefix("SID=") || $0.hasPrefix("QBT_SID_") } ?? cookies.first
        switch response.status {
        case 200 where response.text == "Ok.", 204:
            credential = cookie.map(Credential.cookie) ?? .none
        case 200, 401: throw QBTClientError.loginFailed(url: baseURL.absoluteString)
        case 403: throw QBTClientError.banned(url: baseURL.absoluteString)
        default: throw QBTClientError.server(status: response.status, body: response.text)
        }
    }

    public func logout() async throws {
        if case .cookie = credential { _ = try await send("auth/logout", .form([])) }
        credential = .none
    }

    public func use(_ credential: Credential) { self.credential = credential }

    // MARK: Versions

    public func appVersion() async throws -> String { try await call("app/version").text }

    /// The WebAPI version, asked once per client.
    public func apiVersion() async throws -> APIVersion {
        if let cachedAPIVersion { return cachedAPIVersion }
        let version = APIVersion(try await call("app/webapiVersion").text)
        cachedAPIVersion = version
        return version
    }

    /// 5.x renamed pause/resume to stop/start (WebAPI 2.11).
    public func speaksStopStart() async throws -> Bool { try await apiVersion() >= APIVersion("2.11") }
}

/// A dotted version compared numerically (`2.8.19 < 2.11.0`).
public struct APIVersion: Comparable, Sendable, CustomStringConvertible {
    public let parts: [Int]
    public init(_ text: String) {
        parts = text.trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(in: CharacterSet(charactersIn: "v"))
            .split(separator: ".").map { Int($0) ?? 0 }
    }
    public static func < (a: APIVersion, b: APIVersion) -> Bool {
        for i in 0..<max(a.parts.count, b.parts.count) {
            let x = i < a.parts.count ? a.parts[i] : 0, y = i < b.parts.count ? b.parts[i] : 0
            if x != y { return x < y }
        }
        return false
    }
    public static func == (a: APIVersion, b: APIVersion) -> Bool { !(a < b) && !(b < a) }
    public var description: String { parts.map(String.init).joined(separator: ".") }
}
