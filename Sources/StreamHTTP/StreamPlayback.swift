import Foundation
import HTTPKit
import HTTPTypes
import Hummingbird
import Logging
import Metrics
import NIOCore
import QBTCore
import Streaming
import SystemKit

/// `GET`/`HEAD /stream/{token}` (and `/torrent/{token}`): the file's bytes with Range support, each chunk sent as
/// soon as the piece under it is on disk: with sendfile(2) over plain HTTP, read (on `FileReader`'s threads, off the
/// cooperative pool) and written over TLS. The token is the credential: a player needs no header.
public struct StreamPlayback: Sendable {
    let streams: StreamService
    let logger: Logger
    /// Bytes read from disk and written per step.
    static let chunk = 256 * 1024

    public init(streams: StreamService, logger: Logger) {
        self.streams = streams
        self.logger = logger
    }

    public func addRoutes(to router: Router<QBTRequestContext>) {
        for prefix in ["/stream", "/torrent"] {
            for method in [HTTPRequest.Method.get, .head] {
                router.on("\(prefix)/:token", method: method) { request, context in
                    await ErrorAnswer.guarding(.json, route: "stream", logger: logger) { try await serve(request, context) }
                }
            }
        }
    }

    func serve(_ request: Request, _ context: QBTRequestContext) async throws -> Response {
        let token = context.parameters.get("token") ?? ""
        guard let stream = try? await streams.stream(token) else {
            throw HTTPRefusal(.notFound, "no such stream: prepare one with POST /api/v2/stream/prepare")
        }
        let size = stream.file.size
        let etag = "\"\(stream.torrentID)-\(stream.fileIndex)-\(size)\""
        var range = ByteRange.parse(request.headers[.range], size: size)
        if let ifRange = request.headers[.ifRange], ifRange != etag { range = .whole }  // changed: send it all
        var headers: HTTPFields = [.acceptRanges: "bytes", .contentType: stream.mimeType, .eTag: etag]
        let first: Int64, last: Int64
        var status = HTTPResponse.Status.ok
        switch range {
        case .unsatisfiable:
            throw HTTPRefusal(.rangeNotSatisfiable, "the range lies outside the file (\(size) bytes)",
                              headers: [.contentRange: "bytes */\(size)"])
        case .whole:
            (first, last) = (0, size - 1)
        case .part(let from, let to):
            (first, last) = (from, to)
            status = .partialContent
            headers[.contentRange] = "bytes \(from)-\(to)/\(size)"
        }
        let length = max(0, last - first + 1)
        headers[.contentLength] = String(length)
        if request.method == .head || length == 0 { return Response(status: status, headers: headers) }
        let streams = self.streams, logger = self.logger, outlet = context.fileRegions, files = FileReader.shared
        return Response(status: status, headers: headers, body: ResponseBody(contentLength: Int(length)) { writer in
            let reader = UUID()
            var descriptor: Int32 = -1
            defer { if descriptor >= 0 { close(descriptor) } }
            var position = first
            var ended = "the client went away"
            do {
                while position <= last {
                    try await streams.waitForData(token, reader: reader, position: position)
                    if descriptor < 0 {
                        let path = stream.path
                        let (opened, error) = try await files.run { () -> (Int32, Int32) in
                            let fd = open(path, O_RDONLY | O_CLOEXEC)
                            return (fd, fd < 0 ? errno : 0)
                        }
                        descriptor = opened
                        guard descriptor >= 0 else {
                            ended = "\(stream.path) cannot be opened (errno \(error))"
                            break
                        }
                    }
                    if let outlet, let run = stream.run(from: position, through: last) {
                        // Plain HTTP: what is on disk goes out with sendfile(2), no copy through qbtd.
                        var info = stat()
                        guard fstat(descriptor, &info) == 0, Int64(info.st_size) >= run.end else {
                            ended = "\(stream.path) is shorter than \(run.end) bytes"
                            break
                        }
                        if run.holdUntilSent, !stream.isOnDisk(at: position) { continue }
                        let region = try outlet.region(descriptor: descriptor, offset: position, count: run.end - position)
                        try await writer.write(region.marker)
                        // A stream-cache piece stays under the reader (never evicted) until the kernel has taken it.
                        if run.holdUntilSent { try await region.sent.get() }
                        Self.bytesServed.increment(by: Int(run.end - position))
                        position = run.end
                        continue
                    }
                    let pieceEnd = stream.end(of: stream.piece(at: position))
                    let count = Int(min(last + 1, pieceEnd, position + Int64(Self.chunk)) - position)
                    var buffer = ByteBuffer()
                    var failure = "nothing there"
                    // A transient read error (a file being moved or reopened) gets three more tries.
                    for attempt in 0..<4 {
                        do {
                            buffer = try await files.run { [descriptor, position] () throws -> ByteBuffer in
                                var buffer = ByteBuffer()
                                try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { raw in
                                    try FileReader.pread(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: raw.prefix(count)), at: position)
                                }
                                return buffer
                            }
                        } catch {
                            failure = "\(error)"
                        }
                        if buffer.readableBytes > 0 || attempt == 3 { break }
                        try await Task.sleep(for: .milliseconds(100))
                    }
                    let read = buffer.readableBytes
                    guard read > 0 else {
                        ended = "\(stream.path) has nothing at \(position): \(failure)"
                        break
                    }
                    // Forgotten by the cache meanwhile: what was read may be a punched hole. Wait for it again.
                    guard stream.isOnDisk(at: position) else { continue }
                    try await writer.write(buffer)
                    position += Int64(read)
                    Self.bytesServed.increment(by: read)
                }
            } catch let failure as StreamService.Failure {
                ended = failure.description  // stopped, stalled, or its data cannot be written
            } catch {
                // The client went away: the body ends here.
            }
            await streams.leave(token, reader: reader)
            // Short of the promised length, the connection must close: the player then sees the end at once.
            guard position > last else {
                logger.notice("stream \(stream.fileName): body ended at byte \(position) of \(first)-\(last): \(ended)")
                throw StreamEnded()
            }
            try await writer.finish(nil)
        })
    }

    struct StreamEnded: Error {}

    static let bytesServed = Counter(label: "qbtd_stream_bytes_served_total")
}
