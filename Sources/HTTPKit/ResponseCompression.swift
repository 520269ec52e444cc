import CZlib
import HTTPTypes
import Hummingbird
import NIOCore
import SystemKit

/// gzip for the answers qBittorrent compresses: its WebAPI and its web interface's files, when the request accepts
/// gzip (or `*`) with a quality above 0. As qBittorrent: bodies over 1 KiB only, never GIF, JPEG, PNG or WebP, zlib
/// level 6, and only when the result plus the 24 bytes of `Content-Encoding: gzip\r\n` is smaller. No deflate, no
/// `Vary` (qBittorrent sends neither). Never a ranged or file body: those carry `Accept-Ranges` or `Content-Range`.
public struct ResponseCompressionMiddleware<Context: RequestContext>: RouterMiddleware {
    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        guard let encodings = request.headers[.acceptEncoding], ResponseCompression.acceptsGzip(encodings) else { return response }
        return await ResponseCompression.compressed(response)
    }
}

package enum ResponseCompression {
    /// Smaller bodies are sent as they are ("compressing them only wastes cpu cycles").
    static let threshold = 1024
    /// Larger bodies are compressed off Swift's cooperative pool, on Dispatch's threads. Not on the background
    /// threads at nice 10: there a busy server's many mid-size answers waited for their gzip (300 torrents, 32
    /// clients of `torrents/info`: 450 MiB resident afterwards, against 75 MiB this way).
    static let offPoolSize = 64 * 1024
    static let incompressibleTypes: Set<String> = ["image/gif", "image/jpeg", "image/png", "image/webp"]

    /// RFC 7231 5.3.4 as qBittorrent reads it: `gzip` or `*`, alone or with `q=` above 0.
    package static func acceptsGzip(_ header: String) -> Bool {
        header.split(separator: ",").contains { entry in
            let entry = entry.trimmingSpaces
            return ["gzip", "*"].contains { coding in
                guard entry.hasPrefix(coding) else { return false }
                if entry.count == coding.count { return true }
                let quality = entry.dropFirst(coding.count + 1).trimmingSpaces
                guard quality.hasPrefix("q="), let q = Double(quality.dropFirst(2)) else { return false }
                return q > 0
            }
        }
    }

    static func compressed(_ response: Response) async -> Response {
        let headers = response.headers
        guard response.status != .partialContent, response.status != .notModified,
              headers[.contentEncoding] == nil, headers[.contentRange] == nil, headers[.acceptRanges] == nil
        else { return response }
        guard let length = response.body.contentLength else { return streamed(response) }
        guard length > threshold, length <= Int(UInt32.max), !incompressibleTypes.contains(headers[.contentType] ?? "")
        else { return response }
        let collector = BodyCollector(capacity: length)
        let body = response.body
        do { try await body.write(collector.writer) } catch { return response }
        let bytes = collector.bytes
        let squeezed = length > offPoolSize ? await offPool { gzip(bytes) } : gzip(bytes)
        var out = response
        guard let squeezed else {
            out.body = .init(byteBuffer: bytes)
            return out
        }
        out.headers[.contentEncoding] = "gzip"
        out.body = .init(byteBuffer: squeezed)
        return out
    }

    /// A JSON answer sent as it is made (`JSONParts`: a big library's listing, always well over 1 KiB) is gzipped
    /// as it goes, a part at a time; other bodies of unknown length (event streams, whose events must not wait in
    /// a compressor) go as they are.
    static func streamed(_ response: Response) -> Response {
        guard response.headers[.contentType] == "application/json" else { return response }
        var out = response
        let body = response.body
        out.headers[.contentEncoding] = "gzip"
        out.body = ResponseBody { writer in try await body.write(GzipBodyWriter(parent: writer)) }
        return out
    }

    /// The gzip member, or nil when it is not at least 25 bytes smaller than the input.
    static func gzip(_ input: ByteBuffer) -> ByteBuffer? {
        let capacity = input.readableBytes - 25
        guard capacity > 0 else { return nil }
        var output = ByteBuffer()
        let written = input.withUnsafeReadableBytes { source in
            output.writeWithUnsafeMutableBytes(minimumWritableBytes: capacity) { target in
                let n = qbt_gzip(source.baseAddress?.assumingMemoryBound(to: UInt8.self), source.count,
                                 target.baseAddress?.assumingMemoryBound(to: UInt8.self), capacity, 6)
                return max(0, n)
            }
        }
        return written > 0 ? output : nil
    }
}

/// A body writer that keeps what it is given (a body made from one buffer writes it once).
private final class BodyCollector: @unchecked Sendable {
    var bytes: ByteBuffer

    init(capacity: Int) { bytes = ByteBufferAllocator().buffer(capacity: capacity) }

    var writer: any ResponseBodyWriter { Writer(collector: self) }

    struct Writer: ResponseBodyWriter {
        let collector: BodyCollector
        mutating func write(_ buffer: ByteBuffer) async throws {
            var buffer = buffer
            collector.bytes.writeBuffer(&buffer)
        }
        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}

private extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return s
    }
}
