import Foundation
import HTTPKit
import HTTPTypes
import Hummingbird
import NIOCore
import QBTCore
import Store
import Synchronization
import Uploads

/// The task reading a PATCH body, so a newer request can cancel it.
final class BodyReader: Sendable {
    private let state = Mutex<(task: Task<Void, Error>?, cancelled: Bool)>((nil, false))
    /// A cancel that comes before the task exists (while the writer opens) stops it as soon as it starts.
    func cancel() { state.withLock { $0.cancelled = true; $0.task?.cancel() } }
    func start(_ task: Task<Void, Error>) { state.withLock { $0.task = task; if $0.cancelled { task.cancel() } } }
}

/// tus 1.0.0 at `/api/v2/tus/`: core, creation (with upload, deferred length), termination, checksum, expiration
/// and concatenation. Finished uploads land like multipart ones. Errors carry JSON `{"error": …}`.
public struct TusRoutes: Sendable {
    let api: APIRouter
    let tus: TusService
    let service: TorrentService

    public init(api: APIRouter, tus: TusService, service: TorrentService) {
        self.api = api
        self.tus = tus
        self.service = service
    }

    static let base = "/api/v2/tus"

    public func addRoutes(to router: Router<QBTRequestContext>) {
        for path in [Self.base, Self.base + "/:id"] {
            router.on(RouterPath(path), method: .options) { _, _ in Self.options() }
        }
        router.on(RouterPath(Self.base), method: .post) { request, context in
            await guarded(request, context) { request, caller in try await create(request, prefix: caller.pathPrefix) }
        }
        for method in [HTTPRequest.Method.head, .patch, .delete, .post, .get] {
            router.on(RouterPath(Self.base + "/:id"), method: method) { request, context in
                await guarded(request, context) { request, caller in
                    let id = context.parameters.get("id") ?? ""
                    // X-HTTP-Method-Override, for clients that can only send GET and POST.
                    var effective = request.method
                    if request.method == .post, let override = request.headers[.init("X-HTTP-Method-Override")!] {
                        effective = HTTPRequest.Method(override.uppercased()) ?? effective
                    }
                    switch effective {
                    case .head: return try await head(id, prefix: caller.pathPrefix)
                    case .patch: return try await patch(id, request)
                    case .delete:
                        try await tus.terminate(id)
                        return Response(status: .noContent)
                    default: throw HTTPRefusal(.methodNotAllowed, "use HEAD, PATCH or DELETE on an upload")
                    }
                }
            }
        }
    }

    static func options() -> Response {
        var headers = HTTPFields()
        headers[.init("Tus-Resumable")!] = TusService.version
        headers[.init("Tus-Version")!] = TusService.version
        headers[.init("Tus-Extension")!] = TusService.extensions
        headers[.init("Tus-Checksum-Algorithm")!] = RunningDigest.algorithms.joined(separator: ",")
        return Response(status: .noContent, headers: headers)
    }

    /// Authentication, the protocol version, and errors as tus answers them.
    func guarded(_ request: Request, _ context: QBTRequestContext, _ body: (Request, APICaller) async throws -> Response) async -> Response {
        Self.tagged(await api.admitted(request, context, area: .uploads) { caller in
            guard request.headers[.init("Tus-Resumable")!] == TusService.version else {
                throw HTTPRefusal(.preconditionFailed, "Tus-Resumable must be \(TusService.version)",
                                  headers: [.init("Tus-Version")!: TusService.version])
            }
            return try await body(request, caller)
        })
    }

    // MARK: creation

    /// `prefix`: the path a reverse proxy serves qbtd under (the upload's Location carries it).
    func create(_ request: Request, prefix: String) async throws -> Response {
        let h = request.headers
        let concat = try TusHeaders.concat(h[.init("Upload-Concat")!])
        let deferred = h[.init("Upload-Defer-Length")!]
        let lengthText = h[.init("Upload-Length")!]
        var length: Int64?
        if case .final = concat {
            guard lengthText == nil else { throw UploadError.badRequest("a final upload takes no Upload-Length") }
        } else {
            switch (lengthText, deferred) {
            case (let text?, nil):
                guard let n = Int64(text), n >= 0 else { throw UploadError.badRequest("Upload-Length must be a number ≥ 0") }
                length = n
            case (nil, "1"?): length = nil
            case (nil, _?): throw UploadError.badRequest("Upload-Defer-Length must be 1")
            case (nil, nil): throw UploadError.badRequest("send Upload-Length, or Upload-Defer-Length: 1")
            case (_?, _?): throw UploadError.badRequest("send Upload-Length or Upload-Defer-Length, not both")
            }
        }
        let metadata = try TusHeaders.metadata(h[.init("Upload-Metadata")!])
        let destinations = await Destinations.current(tus.configuration, service)
        var record = try await tus.create(length: length, metadata: metadata, concat: concat, destinations: destinations)
        // creation-with-upload: the first bytes ride on the POST.
        var isFinal = false
        if case .final = concat { isFinal = true }
        if !isFinal, h[.contentType] == "application/offset+octet-stream", (h[.contentLength].flatMap { Int64($0) } ?? 1) > 0 {
            record = try await write(record.id, offset: 0, request: request, uploadLength: nil)
        }
        var response = Response(status: .created)
        response.headers[.location] = prefix + Self.base + "/" + record.id
        response.headers[.init("Upload-Offset")!] = String(record.offset)
        response.headers[.init("Upload-Expires")!] = DateText.http(Date(timeIntervalSince1970: TimeInterval(record.expiresAt)))
        Self.landed(record, &response)
        return response
    }

    // MARK: core

    func head(_ id: String, prefix: String) async throws -> Response {
        await tus.interrupt(id)  // a stalled writer lets go, and what it had counts
        guard let record = try await tus.live(id) else { throw UploadError.notFound("no upload \(id)") }
        var r = Response(status: .ok)
        r.headers[.cacheControl] = "no-store"
        r.headers[.init("Upload-Offset")!] = String(record.offset)
        if let length = record.length { r.headers[.init("Upload-Length")!] = String(length) } else {
            r.headers[.init("Upload-Defer-Length")!] = "1"
        }
        let metadata = record.metadata.sorted { $0.key < $1.key }
            .map { "\($0.key) \(Data($0.value.utf8).base64EncodedString())" }.joined(separator: ",")
        if !metadata.isEmpty { r.headers[.init("Upload-Metadata")!] = metadata }
        if record.concat == "partial" { r.headers[.init("Upload-Concat")!] = "partial" }
        if record.concat == "final" {
            r.headers[.init("Upload-Concat")!] = "final;" + record.parts.map { prefix + Self.base + "/" + $0 }.joined(separator: " ")
        }
        r.headers[.init("Upload-Expires")!] = DateText.http(Date(timeIntervalSince1970: TimeInterval(record.expiresAt)))
        Self.landed(record, &r)
        return r
    }

    /// qbtd's addition: where a finished upload landed.
    static func landed(_ record: TusUploadRecord, _ response: inout Response) {
        if let path = record.resultPath { response.headers[.init("Qbtd-Upload-Path")!] = path }
    }

    func patch(_ id: String, _ request: Request) async throws -> Response {
        guard request.headers[.contentType] == "application/offset+octet-stream" else {
            throw HTTPRefusal(.unsupportedMediaType, "PATCH needs Content-Type: application/offset+octet-stream")
        }
        guard let offsetText = request.headers[.init("Upload-Offset")!], let offset = Int64(offsetText), offset >= 0 else {
            throw UploadError.badRequest("send Upload-Offset (a number ≥ 0)")
        }
        var uploadLength: Int64?
        if let text = request.headers[.init("Upload-Length")!] {
            guard let n = Int64(text), n >= 0 else { throw UploadError.badRequest("Upload-Length must be a number ≥ 0") }
            uploadLength = n
        }
        let record = try await write(id, offset: offset, request: request, uploadLength: uploadLength)
        var r = Response(status: .noContent)
        r.headers[.init("Upload-Offset")!] = String(record.offset)
        r.headers[.init("Upload-Expires")!] = DateText.http(Date(timeIntervalSince1970: TimeInterval(record.expiresAt)))
        Self.landed(record, &r)
        return r
    }

    /// The body into the upload: one writer at a time (a newer request cancels a stalled one), progress made
    /// durable as it goes, the checksum verified at the end.
    func write(_ id: String, offset: Int64, request: Request, uploadLength: Int64?) async throws -> TusUploadRecord {
        let reader = BodyReader()
        let token = await tus.acquire(id) { reader.cancel() }
        do {
            let record = try await receive(id, offset: offset, request: request, uploadLength: uploadLength,
                                           reader: reader, lease: token)
            await tus.release(id, token)
            return record
        } catch {
            await tus.release(id, token)
            throw error
        }
    }

    private func receive(_ id: String, offset: Int64, request: Request, uploadLength: Int64?,
                         reader: BodyReader, lease: UUID) async throws -> TusUploadRecord {
        let writer = try await tus.openWriter(id, lease: lease, offset: offset, uploadLength: uploadLength,
                                              checksum: request.headers[.init("Upload-Checksum")!],
                                              contentLength: request.headers[.contentLength].flatMap { Int64($0) })
        let tus = self.tus
        let task = Task {
            for try await buffer in request.body {
                try Task.checkCancellation()
                await writer.ready(for: buffer.readableBytes)
                try buffer.withUnsafeReadableBytes { try writer.write($0) }
                if writer.wantsCommit { try await tus.commit(writer) }
            }
        }
        reader.start(task)
        let outcome = await task.result
        // Whatever arrived before an error or a disconnect is kept (the protocol asks servers to keep what they can).
        let record = try await tus.closeWriter(writer)
        if case .failure(let error as UploadError) = outcome { throw error }
        return record
    }

    // MARK: answers

    /// Every tus answer but OPTIONS carries the protocol version.
    static func tagged(_ response: Response) -> Response {
        var r = response
        r.headers[.init("Tus-Resumable")!] = TusService.version
        return r
    }
}
