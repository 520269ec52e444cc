import FormData
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import QBTCore

/// Serves `/api/v2/<scope>/<action>` the way qBittorrent's `WebApplication::processRequest` does: CSRF and
/// Host checks (401), then the session — cookie, API key, Basic credentials or an auth bypass — (403 before
/// lookup), then 404, the method rule (405) and the parameters.
public struct APIRouter: Sendable {
    let controllers: [String: [String: APIAction]]
    let sessions: SessionManager
    let gate: WebGate
    let keys: APIKeyRing
    let credentials: Credentials
    let identity: Identity
    let logger: Logger
    /// Each client's calls in lanes of their own (`ClientLanes`).
    let lanes = ClientLanes()
    /// In a cluster, where calls for other nodes' torrents go.
    let relay: (any APIRelay)?

    public init(controllers: [any APIController], sessions: SessionManager, gate: WebGate, keys: APIKeyRing,
                credentials: Credentials, identity: Identity, logger: Logger, relay: (any APIRelay)? = nil) {
        self.relay = relay
        var table: [String: [String: APIAction]] = [:]
        for c in controllers { table[c.scope, default: [:]].merge(c.actions.filter { $0.value.since <= identity.profile }) { $1 } }
        self.controllers = table
        self.sessions = sessions
        self.gate = gate
        self.keys = keys
        self.credentials = credentials
        self.identity = identity
        self.logger = logger
    }

    /// One `/api/v2/<group>/<action>` route as the table holds it.
    public struct Route: Sendable, Hashable {
        public let group: String
        public let action: String
        /// qBittorrent lets a client call it with GET: it only reads.
        public let readOnly: Bool
    }

    /// Every route of the table, sorted.
    public var routes: [Route] {
        controllers.flatMap { group, actions in
            actions.map { Route(group: group, action: $0.key, readOnly: $0.value.methods == .getOrPost) }
        }.sorted { ($0.group, $0.action) < ($1.group, $1.action) }
    }

    public func addRoutes(to router: some RouterMethods<QBTRequestContext>) {
        for method in [HTTPRequest.Method.get, .post, .head, .put, .delete, .patch, .options] {
            router.on("/api/v2/:scope/:action", method: method) { request, context in
                await self.respond(request, context)
            }
        }
    }

    /// How the caller proved who it is.
    enum Authentication {
        case none
        case session(String, SessionMemory)
        case apiKey(String, APIKeyScope, SessionMemory)
        /// A session made on this request (auth bypass or Basic credentials); its cookie goes out with the answer.
        case fresh(String, SessionMemory)
    }

    /// Whose lane a call takes (`ClientLanes`).
    static func client(_ caller: APICaller) -> String {
        caller.sessionID.map { "session " + $0 } ?? caller.apiKeyID.map { "key " + $0 } ?? "address " + caller.clientIP
    }

    /// Calls whose cost grows with the library or a torrent's size: full listings, a torrent's files, logs, results.
    static func isHeavy(_ scope: String, _ action: String, _ p: Parameters) -> Bool {
        switch (scope, action) {
        case ("torrents", "info"): p["hashes"] == nil
        case ("sync", "maindata"): (p.int("rid") ?? 0) == 0
        case ("torrents", "files"), ("torrents", "export"), ("torrents", "pieceStates"), ("log", "main"), ("log", "peers"),
             ("search", "results"), ("rss", "items"): true
        default: false
        }
    }

    func respond(_ request: Request, _ context: QBTRequestContext) async -> Response {
        let scope = context.parameters.get("scope") ?? ""
        let name = context.parameters.get("action") ?? ""
        let action = controllers[scope]?[name]
        do {
            guard case .passed(let caller, let auth) = try await check(request, context) else {
                throw HTTPRefusal(.unauthorized, "Unauthorized")
            }
            let authenticated = caller.sync != nil
            if !(action?.isPublic ?? false) && !authenticated { throw QBitError.accessDenied() }
            // An API key is for the API proper: it cannot log in or out.
            if caller.apiKeyID != nil && scope == "auth" { throw QBitError.accessDenied() }
            // 5.2: an unknown action of a known scope "does not exist"; an unknown scope is plain "Not Found".
            guard let action else {
                throw QBitError.notFound(identity.modernAuth && controllers[scope] != nil ? "Endpoint does not exist" : nil)
            }
            if let keyScope = caller.keyScope,
               !keyScope.permits(.api(group: scope, action: name, readOnly: action.methods == .getOrPost)) {
                throw QBitError.accessDenied(Self.outOfScope(keyScope))
            }
            let method = request.method
            guard method == .get || method == .post || method == .head else {
                throw HTTPRefusal(.notImplemented, "Not Implemented")
            }
            if action.methods == .postOnly && method != .post { throw QBitError.methodNotAllowed }
            let params = try await Self.parameters(request, context)
            let lane = await lanes.enter(Self.client(caller), heavy: Self.isHeavy(scope, name, params))
            let reply: APIReply
            do {
                if let relay {
                    reply = try await relay.answer(scope: scope, action: name, changes: action.methods == .postOnly, params) {
                        try await action.handler($0, caller)
                    }
                } else {
                    reply = try await action.handler(params, caller)
                }
            } catch { lane.leave(); throw error }
            // An answer sent as it is made keeps its lane until it is sent; any other leaves it now.
            if case .jsonParts = reply {} else { lane.leave() }
            if case .file(let file) = reply {  // its own HEAD answer, with the file's length
                var response = file.response(request, context)
                handOver(auth, caller, &response)
                return response
            }
            var response = response(for: reply, lane: lane)
            handOver(auth, caller, &response)
            if method == .head { response.body = .init() }
            return response
        } catch {
            var error = error
            // 5.2 names a missing parameter; so do qbtd's own routes, in every profile.
            if case QBitError.missingParameter(let name) = error, identity.modernAuth || (action?.jsonErrors ?? false) {
                error = QBitError.badParams("Missing required parameters: \(name)")
            }
            return ErrorAnswer.response(for: error, style: action?.jsonErrors ?? false ? .json : .plain,
                                        route: "\(scope)/\(name)", logger: logger)
        }
    }

    /// Runs a call another node of the cluster relayed here: its caller was let in there.
    public func perform(scope: String, action name: String, _ p: Parameters) async throws -> APIReply {
        guard let action = controllers[scope]?[name] else {
            throw QBitError.notFound(identity.modernAuth && controllers[scope] != nil ? "Endpoint does not exist" : nil)
        }
        return try await action.handler(p, APICaller(clientIP: "cluster"))
    }

    enum Check {
        /// Cross-site or a bad Host header: 401 before anything else.
        case refused
        case passed(APICaller, Authentication)
    }

    /// qBittorrent's order: CSRF and Host checks, then who the caller is (not yet whether that is enough).
    func check(_ request: Request, _ context: QBTRequestContext, csrf: Bool = true) async throws -> Check {
        let localPort = context.localAddress?.port ?? 0
        let clientIP = gate.clientIP(socketIP: context.socketIP, forwardedFor: request.headers[.xForwardedFor])
        let policy = gate.policy
        let bearer = Self.credential(request, scheme: "Bearer")
        if csrf, bearer == nil, policy.csrfProtection, isCrossSite(request) {
            logger.warning("WebAPI: CSRF attack detected. Origin: \(request.headers[.origin] ?? "-"), Host: \(request.head.authority ?? "-")")
            return .refused
        }
        let fromProxy = policy.reverseProxy && policy.trustedProxies.contains { $0.contains(context.socketIP) }
        if policy.hostHeaderValidation, !fromProxy,
           !gate.isValidHost(request.head.authority, localIP: context.localAddress?.ipAddress ?? "", localPort: localPort) {
            logger.warning("WebAPI: invalid Host header \(request.head.authority ?? "-") from \(clientIP)")
            return .refused
        }
        let auth = try await authenticate(request, bearer: bearer, clientIP: clientIP, policy: policy)
        var caller = APICaller(clientIP: clientIP, localPort: localPort)
        if fromProxy {
            caller.host = request.headers[.xForwardedHost].flatMap(WebGate.firstForwarded) ?? request.head.authority
            caller.pathPrefix = request.headers[.xForwardedPrefix].flatMap(WebGate.pathPrefix) ?? ""
        } else {
            caller.host = request.head.authority
        }
        caller.trustworthyOrigin = gate.isOriginTrustworthy(
            forwardedProto: request.headers[.xForwardedProto], socketIP: context.socketIP)
        switch auth {
        case .none: break
        case .session(let id, let slot), .fresh(let id, let slot): caller.sessionID = id; caller.sync = slot
        case .apiKey(let id, let keyScope, let slot): caller.apiKeyID = id; caller.keyScope = keyScope; caller.sync = slot
        }
        return .passed(caller, auth)
    }

    /// A session made on this request (auth bypass, Basic credentials) goes back as a cookie, so the client's next
    /// request uses it instead of making another.
    func handOver(_ auth: Authentication, _ caller: APICaller, _ response: inout Response) {
        if case .fresh(let id, _) = auth {
            response.headers.append(HTTPField(name: .setCookie, value: sessionCookie(id, caller)))
        }
    }

    /// The API's gate for qbtd's streamed routes (uploads, tus), which lie in `area`: the session, an API key whose
    /// scope reaches the area, or HTTP Basic, after the same CSRF and Host checks; `body` answers for an admitted
    /// caller, errors are JSON.
    public func admitted(_ request: Request, _ context: QBTRequestContext, area: APIKeyScope.Area,
                         _ body: (APICaller) async throws -> Response) async -> Response {
        await ErrorAnswer.guarding(.json, route: "\(request.method) \(request.uri.path)", logger: logger) {
            let (caller, auth) = try await pass(request, context, area: area)
            // The body's own error answers carry the cookie of a session made on this request too.
            var response: Response
            do { response = try await body(caller) } catch {
                response = ErrorAnswer.response(for: error, style: .json, route: "\(request.method) \(request.uri.path)",
                                                logger: logger)
            }
            handOver(auth, caller, &response)
            return response
        }
    }

    /// The caller of a route outside the table, once the gate let it through and its key (if any) reaches `area`;
    /// else the refusal (401, 403) `admitted` answers. A WebSocket upgrade asks here before it upgrades.
    public func authorized(_ request: Request, _ context: QBTRequestContext, area: APIKeyScope.Area) async throws -> APICaller {
        try await pass(request, context, area: area).caller
    }

    func pass(_ request: Request, _ context: QBTRequestContext, area: APIKeyScope.Area) async throws
        -> (caller: APICaller, auth: Authentication) {
        guard case .passed(let caller, let auth) = try await check(request, context) else {
            throw HTTPRefusal(.unauthorized, "Unauthorized")
        }
        guard caller.sync != nil else {
            throw HTTPRefusal(.forbidden, "Forbidden: log in, or send an API key (Authorization: Bearer) or Basic credentials")
        }
        if let keyScope = caller.keyScope, !keyScope.permits(area) {
            throw HTTPRefusal(.forbidden, Self.outOfScope(keyScope))
        }
        return (caller, auth)
    }

    /// Who asks for a WebUI file, after the same CSRF (skipped for the web root, as in qBittorrent) and Host checks:
    /// nil when refused (401), else whether the caller has a session; `finish` adds the cookie of a session made on
    /// this request (an auth bypass).
    public func webUIVisitor(_ request: Request, _ context: QBTRequestContext, webRoot: Bool) async
        -> (session: Bool, finish: @Sendable (inout Response) -> Void)? {
        guard case .passed(let caller, let auth)? = try? await check(request, context, csrf: !webRoot) else { return nil }
        let cookie: String? = if case .fresh(let id, _) = auth { sessionCookie(id, caller) } else { nil }
        return (caller.sync != nil, { response in
            if let cookie { response.headers.append(HTTPField(name: .setCookie, value: cookie)) }
        })
    }

    /// Whether `request` carries a live WebUI session from the same site, under the API's CSRF rule: how qbtd's web
    /// interface reaches routes that otherwise take only API keys (the music library).
    @Sendable public func sameSiteSession(_ request: Request) async -> Bool {
        guard let sid = Self.sessionID(in: request) else { return false }
        if gate.policy.csrfProtection, isCrossSite(request) { return false }
        return await sessions.touch(sid) != nil
    }

    /// qBittorrent's CSRF test: Origin or Referer naming another host; from 5.3 also a browser's `Sec-Fetch-Site`
    /// saying anything but `same-origin` or `none` (a request without it is let through, as 5.3.0 does).
    func isCrossSite(_ request: Request) -> Bool {
        if identity.profile >= .v5_3, let site = request.headers[.init("Sec-Fetch-Site")!]?.lowercased(),
           !["", "same-origin", "none"].contains(site) {
            return true
        }
        return WebGate.isCrossSite(origin: request.headers[.origin], referer: request.headers[.init("Referer")!],
                                   host: request.head.authority, forwardedHost: request.headers[.xForwardedHost])
    }

    /// The refusal of a key whose scope does not reach the route.
    public static func outOfScope(_ scope: APIKeyScope) -> String {
        "Forbidden: this API key's scope is \(scope.rawValue), which reaches \(scope.reach)"
    }

    func authenticate(_ request: Request, bearer: String?, clientIP: String, policy: WebSecurityPolicy) async throws -> Authentication {
        if let bearer {
            guard let key = await keys.verify(bearer) else { return .none }
            return .apiKey(key.id, key.keyScope, await sessions.keySession(key.id))
        }
        if let sid = sessionCookie(request), let slot = await sessions.touch(sid) { return .session(sid, slot) }
        // qBittorrent's auth bypass: localhost (when allowed) and whitelisted subnets get a session unasked.
        if (policy.bypassLocalAuth && Subnet.isLoopback(clientIP)) || policy.bypassSubnets.contains(where: { $0.contains(clientIP) }) {
            let sid = await sessions.open(for: clientIP)
            return .fresh(sid, await sessions.touch(sid)!)
        }
        // 5.2's HTTP Basic: good credentials make a session, bad ones count toward the ban and get a 401.
        if let basic = Self.credential(request, scheme: "Basic"),
           let decoded = Data(base64Encoded: basic).map({ String(decoding: $0, as: UTF8.self) }),
           let colon = decoded.firstIndex(of: ":") {
            if await sessions.isBanned(clientIP) { throw QBitError.accessDenied(SessionCookie.bannedMessage) }
            let user = String(decoded[..<colon]), password = String(decoded[decoded.index(after: colon)...])
            guard await credentials.verify(username: user, password: password) else {
                await sessions.recordFailure(clientIP)
                throw QBitError.unauthorized
            }
            let sid = await sessions.open(for: clientIP)
            return .fresh(sid, await sessions.touch(sid)!)
        }
        return .none
    }

    package static func credential(_ request: Request, scheme: String) -> String? {
        credential(authorization: request.headers[.authorization], scheme: scheme)
    }

    /// The credential of an `Authorization` value in `scheme` (the scheme's case ignored, blanks trimmed).
    package static func credential(authorization value: String?, scheme: String) -> String? {
        guard let value else { return nil }
        // Byte-wise, without Foundation's lowercasing and trimming (NSString round trips): every keyed request
        // comes here.
        let bytes = Array(value.utf8), prefix = Array((scheme + " ").utf8)
        guard bytes.count > prefix.count, zip(bytes, prefix).allSatisfy({ asciiLower($0) == asciiLower($1) }) else { return nil }
        var start = prefix.count, end = bytes.count
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    static func asciiLower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }

    func sessionCookie(_ request: Request) -> String? { Self.sessionID(in: request) }

    /// Either dialect's cookie: `SID` (≤5.1) or `QBT_SID_<port>` (5.2).
    public static func sessionID(in request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for item in header.split(separator: ";") {
                let kv = item.split(separator: "=", maxSplits: 1)
                guard kv.count == 2 else { continue }
                let key = kv[0].trimmingCharacters(in: .whitespaces)
                if key == "SID" || key.hasPrefix("QBT_SID_") { return kv[1].trimmingCharacters(in: .whitespaces) }
            }
        }
        return nil
    }

    func sessionCookie(_ sid: String, _ caller: APICaller) -> String {
        let policy = gate.policy
        return SessionCookie.make(name: identity.cookieName(port: caller.localPort), value: sid, identity: identity,
                                     csrf: policy.csrfProtection, secure: policy.secureCookie && caller.trustworthyOrigin,
                                     timeout: policy.sessions.sessionTimeout)
    }

    /// GET and HEAD read the query; POST reads only the body, urlencoded or multipart (qBittorrent ignores
    /// the query string of a POST).
    static func parameters(_ request: Request, _ context: QBTRequestContext) async throws -> Parameters {
        if request.method != .post {
            return Parameters(fields: FormURLEncoded.parse(Substring(request.uri.query ?? "")))
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: QBTRequestContext.maxRequestSize)
        } catch {
            throw QBitError.payloadTooLarge
        }
        let bytes = Array(buffer.readableBytesView)
        let contentType = request.headers[.contentType] ?? ""
        let lowered = contentType.lowercased()
        if lowered.hasPrefix("multipart/form-data") {
            guard let boundary = Multipart.boundary(fromContentType: contentType) else { throw QBitError.badParams() }
            do { return Parameters(try Multipart.parse(bytes, boundary: boundary)) } catch { throw QBitError.badParams() }
        }
        if lowered.hasPrefix("application/x-www-form-urlencoded") || (lowered.isEmpty && !bytes.isEmpty) {
            return Parameters(fields: FormURLEncoded.parse(Substring(String(decoding: bytes, as: UTF8.self))))
        }
        return Parameters()
    }

    func response(for reply: APIReply, lane: LanePass? = nil) -> Response {
        switch reply {
        case .empty: return Answer.plain(.ok, "")
        case .done: return identity.voidActionsNoContent ? Response(status: .noContent) : Answer.plain(.ok, "")
        case .text(let text): return Answer.plain(.ok, text)
        case .status(let code, let text):
            return code == 204 ? Response(status: .noContent) : Answer.plain(.init(code: code), text)
        case .json(let data): return Answer.jsonBody(.ok, data)
        case .jsonBytes(let bytes): return Answer.jsonBody(.ok, bytes)
        case .jsonParts(let parts): return Answer.jsonParts(.ok, parts, lane: lane)
        case .accepted(let value): return Answer.jsonBody(.accepted, value.serialized())
        case .binary(let bytes, let type, let filename):
            var headers: HTTPFields = [.contentType: type]
            if let filename { headers[.contentDisposition] = "attachment; filename=\"\(filename)\"" }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        case .file:  // answered with the request at hand (`respond`)
            return Answer.plain(.internalServerError, "")
        case .withHeaders(let inner, let headers):
            var response = self.response(for: inner, lane: lane)
            for (name, value) in headers {
                if let field = HTTPField.Name(name) { response.headers.append(HTTPField(name: field, value: value)) }
            }
            return response
        }
    }
}
