import FormData
import Foundation
import HTTPKit
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
        router.on("/api/v2/uploads", method: .post) { request, context in
            await api.admitted(request, context, area: .uploads) { _ in try await upload(request) }
        }
        router.on("/api/v2/uploads", method: .get) { request, context in
            await api.admitted(request, context, area: .uploads) { _ in list() }
        }
    }

    func list() -> Response {
        Answer.json(.ok, .array(board.all.map { ticket in
            .object([
                "id": .string(ticket.id), "kind": .string(ticket.kind), "name": .string(ticket.name.withLock { $0 }),
                "received": .int(ticket.received), "total": ticket.total.map { .int($0) } ?? .null,
                "started_on": .int(ticket.startedAt),
            ])
        }))
    }

    func upload(_ request: Request) async throws -> Response {
        guard let boundary = MultipartStreamParser.boundary(fromContentType: request.headers[.contentType] ?? "") else {
            throw HTTPRefusal(.badRequest, "send multipart/form-data with a boundary (curl -F file=@PATH)")
        }
        let query = FormURLEncoded.parse(Substring(request.uri.query ?? ""))
        let length = request.headers[.contentLength].flatMap { Int64($0) }
        let destinations = await Destinations.current(configuration, service)
        let ticket = board.open(kind: "multipart", name: "", total: length)
        defer { board.close(ticket) }
        // Refused before a byte of the body is read.
        let initial = try destinations.resolve(path: query["path"], category: query["category"])
        if let length { try configuration.preflight(bytes: length, at: initial) }
        let upload = MultipartUpload(boundary: boundary, destination: initial, margin: configuration.margin,
                                     journal: configuration.journal,
                                     ticket: ticket) { fields in
            let path = fields["path"] ?? query["path"], category = fields["category"] ?? query["category"]
            guard path != query["path"] || category != query["category"] else { return initial }
            let chosen = try destinations.resolve(path: path, category: category)
            if let length { try configuration.preflight(bytes: length - ticket.received, at: chosen) }
            return chosen
        }
        if let overwrite = query["overwrite"] { upload.defaultOverwrite = overwrite == "true" }
        // On any error the upload is dropped with its temp files (MultipartUpload's deinit).
        do {
            for try await buffer in request.body {
                await upload.ready(for: buffer.readableBytes)
                try buffer.withUnsafeReadableBytes { try upload.feed($0) }
                if let limit = configuration.maxUploadSize, ticket.received > limit { throw UploadError.tooLarge(limit: limit) }
            }
        } catch let error as UploadError {
            throw error
        } catch {
            throw UploadError.badRequest("the upload was interrupted before its end: nothing was kept")
        }
        let stored = try upload.finish()
        return Answer.json(.created, .array(stored.map {
            .object(["name": .string($0.name), "size": .int($0.size), "sha256": .string($0.sha256), "path": .string($0.path)])
        }))
    }
}
