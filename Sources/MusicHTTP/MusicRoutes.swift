import FileRegions
import Foundation
import HTTPKit
import HTTPTypes
import Hummingbird
import Metrics
import Music
import NIOCore
import QBTCore
import SystemKit

/// `/music/*`: the MP3 library as HLS for remote players. Every route takes `Authorization: Bearer <key>` or
/// `?api_key=` (for players that cannot set headers), or the WebUI's session (qbtd's web interface); errors are JSON.
public struct MusicRoutes: Sendable {
    let library: MusicLibrary
    let host: MusicHost
    let keys: APIKeyRing
    let appVersion: String
    /// Looked up once: on Linux the host name can cost a resolver call.
    let hostName = ProcessInfo.processInfo.hostName

    /// The tunnel's public address while there is one (`--tunnel`).
    let tunnelURL: @Sendable () async -> String?
    /// Whether the request carries a live WebUI session (same-site); without it only keys are taken.
    let webSession: @Sendable (Request) async -> Bool

    public init(library: MusicLibrary, host: MusicHost, keys: APIKeyRing, appVersion: String,
                tunnelURL: @escaping @Sendable () async -> String? = { nil },
                webSession: @escaping @Sendable (Request) async -> Bool = { _ in false }) {
        self.tunnelURL = tunnelURL
        self.webSession = webSession
        self.library = library
        self.host = host
        self.keys = keys
        self.appVersion = appVersion
    }

    public func addRoutes(to router: Router<QBTRequestContext>) {
        _ = (Self.segmentsServed, Self.segmentsFast)  // registered now: /metrics shows them from the start, at 0
        router.get("/music/auth") { request, _ in
            await guarded(request) { _ in
                Self.json(.ok, .object([
                    "host": .string(hostName), "protocolVersion": .int(Int64(MusicHost.protocolVersion)),
                    "libraryVersion": .int(Int64(await library.version)), "appVersion": .string(appVersion),
                    "encrypted": .bool(library.configuration.encrypt),
                    "tunnelUrl": await tunnelURL().map { .string($0) } ?? .null,
                ]))
            }
        }
        // The library as JSON, for a browser (qbtd's web interface lists it; SQLite would need a WASM build of it).
        router.get("/music/library") { request, _ in
            await guarded(request) { _ in
                let listing = try await library.listing()
                return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "private, no-cache",
                                                       .eTag: "\"\(listing.version)\""],
                                body: .init(byteBuffer: ByteBuffer(bytes: MusicListingJSON.encode(listing, encrypted: library.configuration.encrypt))))
            }
        }
        router.get("/music/db") { request, _ in
            await guarded(request) { _ in
                let (version, file) = try await library.snapshot()
                let etag = "\"\(version)\""
                if let match = request.headers[.ifNoneMatch], match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag || $0 == "*" }) {
                    try? file.close()
                    return Response(status: .notModified, headers: [.eTag: etag])
                }
                let size = try file.seekToEnd()
                try file.seek(toOffset: 0)
                // Streamed in 256 KiB reads: a big library's database is never whole in memory.
                return Response(status: .ok, headers: [.contentType: "application/vnd.sqlite3", .eTag: etag,
                                                       .contentDisposition: "attachment; filename=\"library.sqlite\""],
                                body: ResponseBody(contentLength: Int(size)) { writer in
                                    defer { try? file.close() }
                                    // Read on FileReader's threads, off the cooperative pool.
                                    var offset: Int64 = 0
                                    let descriptor = file.fileDescriptor
                                    while true {
                                        let chunk = try await FileReader.shared.read(descriptor, at: offset, count: 256 << 10)
                                        if chunk.isEmpty { break }
                                        try await writer.write(ByteBuffer(bytes: chunk))
                                        offset += Int64(chunk.count)
                                    }
                                    try await writer.finish(nil)
                                })
            }
        }
        router.get("/music/tracks/:id/stream.m3u8") { request, context in
            await guarded(request) { query in
                let track = try await track(context)
                let (segmenter, version) = try await library.segmenter(for: track)
                let text = segmenter.playlist(query: query, version: version, encrypted: library.configuration.encrypt)
                return Response(status: .ok, headers: [.contentType: "application/vnd.apple.mpegurl", .cacheControl: "private, no-cache"],
                                body: .init(byteBuffer: ByteBuffer(string: text)))
            }
        }
        router.get("/music/tracks/:id/segments/:segment") { request, context in
            await guarded(request) { _ in
                let name = context.parameters.get("segment") ?? ""
                guard name.hasSuffix(".mp3"), let n = Int(name.dropLast(4)), n >= 0 else {
                    throw HTTPRefusal(.notFound, "segments are named <n>.mp3")
                }
                let track = try await track(context)
                let (segmenter, version) = try await library.segmenter(for: track)
                let key = library.configuration.encrypt ? library.key(for: track.id) : nil
                guard segmenter.part(n) != nil else {
                    throw HTTPRefusal(.notFound, "track \(track.id) has \(segmenter.segments.count) segments (0…\(segmenter.segments.count - 1))")
                }
                // A segment cut before is a file sent whole (sendfile(2) over plain HTTP); one not cut yet is cut now
                // (read, and encrypted when the library is, on FileReader's threads, off the cooperative pool), kept
                // for the next request, and answered from memory.
                let body: ResponseBody
                let path = track.path, id = track.id
                if let stored = library.cut.stored(track: id, version: version, segment: n),
                   let sent = try await Self.storedSegment(stored, outlet: context.fileRegions) {
                    body = sent
                } else {
                    body = .init(byteBuffer: ByteBuffer(bytes: try await FileReader.shared.run {
                        let bytes = try segmenter.segment(n, from: path, key: key) ?? []
                        library.cut.store(bytes, track: id, version: version, segment: n)
                        return bytes
                    }))
                }
                Self.segmentsServed.increment()
                return Response(status: .ok, headers: [.contentType: key == nil ? "audio/mpeg" : "application/octet-stream",
                                                       .cacheControl: "private, max-age=86400"],
                                body: body)
            }
        }
        router.get("/music/tracks/:id/key") { request, context in
            await guarded(request) { _ in
                guard library.configuration.encrypt else { throw HTTPRefusal(.notFound, "encryption is off on this server") }
                let track = try await track(context)
                return Response(status: .ok, headers: [.contentType: "application/octet-stream", .cacheControl: "private, max-age=31536000"],
                                body: .init(byteBuffer: ByteBuffer(bytes: library.key(for: track.id))))
            }
        }
        // Without an upgrade (the WebSocket router takes those): say what is needed.
        router.get("/music/ws") { request, _ in
            await guarded(request) { _ in throw HTTPRefusal(.upgradeRequired, "open a WebSocket here") }
        }
    }

    enum Admission { case admitted, noKey, outOfScope(APIKeyScope) }

    /// Whether the request carries a live API key whose scope reaches `/music`, in the header or (for players
    /// without headers) the query.
    func admission(_ request: Request) async -> Admission {
        guard let key = APIRouter.credential(request, scheme: "Bearer") ?? request.uri.queryParameters["api_key"].map(String.init) else {
            return await webSession(request) ? .admitted : .noKey
        }
        guard let record = await keys.verify(key) else { return .noKey }
        return record.keyScope.permits(.music) ? .admitted : .outOfScope(record.keyScope)
    }

    func isAuthorized(_ request: Request) async -> Bool {
        if case .admitted = await admission(request) { return true }
        return false
    }

    static let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")

    /// Runs `body` for an authenticated request with the query to carry on listed URIs (`?api_key=` when the key
    /// came that way); JSON errors otherwise.
    func guarded(_ request: Request, _ body: (_ query: String) async throws -> Response) async -> Response {
        await ErrorAnswer.guarding(.json, route: "\(request.uri.path)") {
            switch await admission(request) {
            case .admitted: break
            case .noKey:
                throw HTTPRefusal(.unauthorized, "send a valid API key: Authorization: Bearer <key>, or ?api_key=<key>",
                                  headers: [.wwwAuthenticate: "Bearer"])
            case .outOfScope(let scope):
                throw HTTPRefusal(.forbidden, APIRouter.outOfScope(scope))
            }
            let query = request.uri.queryParameters["api_key"].map { "?api_key=" + (String($0).addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? "") } ?? ""
            return try await body(query)
        }
    }

    static let segmentsServed = Counter(label: "qbtd_music_segments_served_total")
    /// Of those, the ones `MusicSegmentFastPath` answered before the router.
    static let segmentsFast = Counter(label: "qbtd_music_segments_fast_total")

    func track(_ context: QBTRequestContext) async throws -> MusicLibrary.TrackFile {
        guard let text = context.parameters.get("id"), let id = Int64(text), let track = try await library.track(id) else {
            throw HTTPRefusal(.notFound, "no such track")
        }
        if let error = track.error { throw MusicError.notMP3("track \(track.id) is not playable: \(error)") }
        return track
    }

    /// A segment cut before: sent with sendfile(2) when the connection has an outlet for it, else read into the
    /// answer (TLS; on FileReader's threads); nil when its file is gone (the shelf forgot it meanwhile).
    static func storedSegment(_ stored: CutSegments.Stored, outlet: FileRegionOutlet?) async throws -> ResponseBody? {
        guard let outlet else {
            return (try? await FileReader.shared.run { try readStored(stored) }).map { .init(byteBuffer: $0) }
        }
        let fd = open(stored.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        // The outlet takes the descriptor as it is (no dup) and closes it once sent or given up.
        let region = try outlet.region(taking: fd, offset: 0, count: Int64(stored.length)).marker
        return ResponseBody(contentLength: stored.length) { writer in
            try await writer.write(region)
            try await writer.finish(nil)
        }
    }

    /// A cut segment's file, whole. Blocks: run it on `FileReader`.
    static func readStored(_ stored: CutSegments.Stored) throws -> ByteBuffer {
        let fd = open(stored.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw MusicError.unreadable(stored.path) }
        defer { close(fd) }
        var buffer = ByteBuffer()
        let read = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: stored.length) { raw in
            try FileReader.pread(fd, into: UnsafeMutableRawBufferPointer(rebasing: raw.prefix(stored.length)), at: 0)
        }
        guard read == stored.length else { throw MusicError.changed(stored.path) }
        return buffer
    }

    static func json(_ status: HTTPResponse.Status, _ value: JSONValue) -> Response { Answer.json(status, value) }
}
