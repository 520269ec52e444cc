import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import QBTCore
import Uploads

/// `POST /api/v2/uploads`: multipart bodies streamed straight to disk; `GET /api/v2/uploads`: what is arriving.
/// Errors are JSON `{"error": …}`.
public struct UploadRoutes: Sendable {
    let api: APIRouter
    let configuration: UploadConfiguration
    let board: ProgressBoard
    let service: TorrentService

    public init(api: APIRouter, configuration: UploadConfiguration, board: ProgressBoard, service: TorrentService) {
        self.api = api
        self.configuration = configuration
        self.board = board
        self.service = service
    }

    public func addRoutes(to router: Router<QBTRequestContext>) {
        router.on("/api/v2/uploads", method: .post) { request, context in await upload(request, context) }
        router.on("/api/v2/uploads", method: .get) { request, context in await list(request, context) }
    }

    func destinations() async -> Destinations {
        Destinations(configuration: configuration, categories: await service.categorySavePaths())
    }

    func list(_ request: Request, _ context: QBTRequestContext) async -> Response {
        if case .refused(let refusal) = await api.admit(request, context) { return refusal }
        return Self.json(.ok, .array(board.all.map { ticket in
            .object([
                "id": .string(ticket.id), "kind": .string(ticket.kind), "name": .string(ticket.name.withLock { $0 }),
                "received": .int(ticket.received), "total": ticket.total.map { .int($0) } ?? .null,
                "started_on": .int(ticket.startedAt),
            ])
        }))
    }

    func upload(_ request: Request, _ context: QBTRequestContext) async -> Response {
        if case .refused(let refusal) = await api.admit(request, context) { return refusal }
        guard let boundary = MultipartStreamParser.boundary(fromContentType: request.headers[.contentType] ?? "") else {
            return APIRouter.jsonError(.badRequest, "send multipart/form-data with a boundary (curl -F file=@PATH)")
        }
        let query = FormURLEncoded.parse(Substring(request.uri.query ?? ""))
        let length = request.headers[.contentLength].flatMap { Int64($0) }
        let destinations = await destinations()
        let ticket = board.open(kind: "multipart", name: "", total: length)
        defer { board.close(ticket) }
        do {
            // Refused before a byte of the body is read.
            let initial = try destinations.resolve(path: query["path"], category: query["category"])
            if let length { try destinations.preflight(bytes: length, at: initial) }
            let upload = MultipartUpload(boundary: boundary, destination: initial, margin: configuration.margin,
                                         ticket: ticket) { fields in
                let path = fields["path"] ?? query["path"], category = fields["category"] ?? query["category"]
                guard path != query["path"] || category != query["category"] else { return initial }
                let chosen = try destinations.resolve(path: path, category: category)
                if let length { try destinations.preflight(bytes: length - ticket.received, at: chosen) }
                return chosen
            }
            if let overwrite = query["overwrite"] { upload.defaultOverwrite = overwrite == "true" }
            do {
                for try await buffer in request.body {
                    try buffer.withUnsafeReadableBytes { try upload.feed($0) }
                    if let limit = configuration.maxUploadSize, ticket.received > limit { throw UploadError.tooLarge(limit: limit) }
                }
            } catch let error as UploadError {
                throw error
            } catch {
                upload.abort()
                throw UploadError.badRequest("the upload was interrupted before its end: nothing was kept")
            }
            let stored = try upload.finish()
            return Self.json(.created, .array(stored.map {
                .object(["name": .string($0.name), "size": .int($0.size), "sha256": .string($0.sha256), "path": .string($0.path)])
            }))
        } catch let error as UploadError {
            return APIRouter.jsonError(.init(code: error.status), error.description)
        } catch {
            return APIRouter.jsonError(.internalServerError, "\(error)")
        }
    }

    static func json(_ status: HTTPResponse.Status, _ value: JSONValue) -> Response {
        Response(status: status, headers: [.contentType: "application/json"],
                 body: .init(byteBuffer: ByteBuffer(bytes: value.serialized())))
    }
}
