import Foundation
import HTTPKit
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix

/// `/` and every path the API and qbtd's own routes do not take: qbtd's own interface, or the alternative WebUI
/// folder the preferences (or `--webui-dir`) name, served as qBittorrent serves its WebUI.
public struct WebUIRoutes: Sendable {
    let api: APIRouter
    let gate: WebGate
    /// qbtd's own interface (nil when the files are missing: `/` then says where they were looked for).
    let builtIn: String?
    /// qBittorrent-nox turns the alternative WebUI off when its `index.html` cannot be served.
    let turnOffAlternative: @Sendable () async -> Void

    public init(api: APIRouter, gate: WebGate, builtIn: String?, turnOffAlternative: @escaping @Sendable () async -> Void) {
        self.api = api
        self.gate = gate
        self.builtIn = builtIn
        self.turnOffAlternative = turnOffAlternative
    }

    public func addRoutes(to router: some RouterMethods<QBTRequestContext>) {
        for method in [HTTPRequest.Method.get, .head] {
            for path in ["/", "/**"] {
                router.on(RouterPath(path), method: method) { request, context in
                    await ErrorAnswer.guarding(.plain, route: "WebUI \(request.uri.path)") { try await self.serve(request, context) }
                }
            }
        }
    }

    func serve(_ request: Request, _ context: QBTRequestContext) async throws -> Response {
        guard let path = request.uri.path.removingPercentEncoding else { throw HTTPRefusal(.badRequest, "Bad Request") }
        let webRoot = path == "/" || path == "/index.html"
        guard let visitor = await api.webUIVisitor(request, context, webRoot: webRoot) else {
            throw HTTPRefusal(.unauthorized, "Unauthorized")
        }
        let alternative = gate.alternativeWebUI
        guard let rootPath = alternative ?? builtIn else {
            throw HTTPRefusal(.notFound, "qbtd's web interface is not installed beside this binary (\(BuiltInWebUI.searched.joined(separator: ", "))). The WebAPI is under /api/v2/.")
        }
        let folder = WebUIFolder(root: rootPath, alternative: alternative != nil)
        let session = visitor.session
        let outcome = (try? await NIOThreadPool.singleton.runIfActive { folder.read(path, session: session) })
            ?? .unusable("Web server error. Unknown error.")
        var response: Response
        // Refusals here still carry the cookie of a session made on this request (`visitor.finish`).
        func refusal(_ status: HTTPResponse.Status, _ text: String) -> Response {
            ErrorAnswer.response(for: HTTPRefusal(status, text), style: .plain, route: "WebUI \(path)")
        }
        switch outcome {
        case .badRequest: response = refusal(.badRequest, "Bad Request")
        case .notFound: response = refusal(.notFound, "Not Found")
        case .unusable(let reason):
            // Only a lasting fault turns the alternative UI off (qBittorrent-nox's rule), never a passing one (a
            // file being edited, no descriptor free).
            if folder.alternative, webRoot, WebUIFolder.lasting.contains(reason) { await turnOffAlternative() }
            response = refusal(.internalServerError, reason)
        case .file(let bytes, let type):
            response = folder.alternative ? Self.alternativeFile(bytes, type) : Self.ownFile(bytes, type, request)
        }
        visitor.finish(&response)
        // HEAD keeps the Content-Length the GET would send.
        return request.method == .head ? response.createHeadResponse() : response
    }

    /// qBittorrent's caching for an alternative UI's files.
    static func alternativeFile(_ bytes: [UInt8], _ type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type, .cacheControl: MediaTypes.cacheControl(for: type)],
                 body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// qbtd's own files are checked with the server on every use (an ETag), so a new qbtd never runs old scripts.
    static func ownFile(_ bytes: [UInt8], _ type: String, _ request: Request) -> Response {
        let tag = "\"\(String(fnv1a(bytes), radix: 16))\""
        var headers: HTTPFields = [.contentType: type.hasPrefix("text/") || type.hasSuffix("javascript") ? type + "; charset=UTF-8" : type,
                                   .cacheControl: "no-cache", .eTag: tag]
        if request.headers[.ifNoneMatch] == tag {
            headers[.contentType] = nil
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}
