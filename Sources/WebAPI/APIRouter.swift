import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// Serves `/api/v2/<scope>/<action>` the way qBittorrent's `WebApplication::processRequest` does:
/// session check (403) before lookup (404), then the method rule (405), then the parameters.
public struct APIRouter: Sendable {
    public static let cookieName = "SID"
    let controllers: [String: [String: APIAction]]
    let sessions: SessionManager
    let logger: Logger

    public init(controllers: [any APIController], sessions: SessionManager, logger: Logger) {
        var table: [String: [String: APIAction]] = [:]
        for c in controllers { table[c.scope, default: [:]].merge(c.actions) { $1 } }
        self.controllers = table
        self.sessions = sessions
        self.logger = logger
    }

    public func addRoutes(to router: Router<QBTRequestContext>) {
        for method in [HTTPRequest.Method.get, .post, .head, .put, .delete, .patch, .options] {
            router.on("/api/v2/:scope/:action", method: method) { request, context in
                await self.respond(request, context)
            }
        }
    }

    func respond(_ request: Request, _ context: QBTRequestContext) async -> Response {
        let scope = context.parameters.get("scope") ?? ""
        let name = context.parameters.get("action") ?? ""
        let action = controllers[scope]?[name]
        let sessionID = Self.sessionCookie(request)
        let caller = APICaller(clientIP: context.clientIP, sessionID: sessionID)
        do {
            let authenticated = await sessions.touch(sessionID)
            if !(action?.isPublic ?? false) && !authenticated { throw QBitError.accessDenied() }
            guard let action else { throw QBitError.notFound() }
            let method = request.method
            guard method == .get || method == .post || method == .head else {
                return Self.plain(.notImplemented, "Not Implemented")
            }
            if action.methods == .postOnly && method != .post { throw QBitError.methodNotAllowed }
            let params = try await Self.parameters(request, context)
            let reply = try await action.handler(params, caller)
            var response = Self.response(for: reply)
            if method == .head { response.body = .init() }
            return response
        } catch let error as QBitError {
            return Self.plain(error.status, error.body)
        } catch {
            logger.error("\(scope)/\(name) failed: \(error)")
            return Self.plain(.internalServerError, "Internal Server Error")
        }
    }

    static func sessionCookie(_ request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for item in header.split(separator: ";") {
                let kv = item.split(separator: "=", maxSplits: 1)
                if kv.count == 2, kv[0].trimmingCharacters(in: .whitespaces) == cookieName {
                    return kv[1].trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
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
            do { return try Multipart.parse(bytes, boundary: boundary) } catch { throw QBitError.badParams() }
        }
        if lowered.hasPrefix("application/x-www-form-urlencoded") || (lowered.isEmpty && !bytes.isEmpty) {
            return Parameters(fields: FormURLEncoded.parse(Substring(String(decoding: bytes, as: UTF8.self))))
        }
        return Parameters()
    }

    static func response(for reply: APIReply) -> Response {
        switch reply {
        case .empty: return plain(.ok, "")
        case .text(let text): return plain(.ok, text)
        case .json(let data):
            return Response(status: .ok, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(bytes: data)))
        case .withHeaders(let inner, let headers):
            var response = self.response(for: inner)
            for (name, value) in headers {
                if let field = HTTPField.Name(name) { response.headers.append(HTTPField(name: field, value: value)) }
            }
            return response
        }
    }

    static func plain(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=UTF-8"],
                 body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

/// The headers qBittorrent puts on every answer.
public struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    public init() {}
    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.init("X-XSS-Protection")!] = "1; mode=block"
        response.headers[.init("X-Content-Type-Options")!] = "nosniff"
        response.headers[.init("X-Frame-Options")!] = "SAMEORIGIN"
        response.headers[.init("Referrer-Policy")!] = "same-origin"
        response.headers[.init("Cross-Origin-Opener-Policy")!] = "same-origin"
        response.headers[.contentSecurityPolicy] = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; script-src 'self' 'unsafe-inline'; object-src 'none'; form-action 'self'; frame-src 'self' blob:; frame-ancestors 'self';"
        return response
    }
}
