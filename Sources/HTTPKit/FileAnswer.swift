import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SystemKit

/// A file on disk as an API answer (5.3's `torrents/downloadFile`), as qBittorrent's `ResponseWriter::streamFile`
/// sends one: one `Range` at most (several, or a malformed one, are a 400 with no body; one outside the file a 416),
/// `Accept-Ranges`, an attachment named after the file, its type by extension; never compressed. Over plain HTTP
/// the bytes go out with sendfile(2), as `/stream` bodies do; over TLS they are read on `FileReader`'s threads.
public struct FileAnswer: Sendable {
    public var path: String
    public var size: Int64

    public init(path: String, size: Int64) {
        self.path = path
        self.size = size
    }

    enum Span: Equatable {
        case whole
        case part(first: Int64, last: Int64)
        case malformed
        case unsatisfiable
    }

    /// qBittorrent's `parseRangeHeader` (`bytes=N-[M]` or `bytes=-N`, nothing else) and its bounds check.
    static func span(_ header: String?, size: Int64) -> Span {
        guard let header else { return .whole }
        guard header.hasPrefix("bytes=") else { return .malformed }
        let spec = header.dropFirst(6)
        guard let dash = spec.firstIndex(of: "-") else { return .malformed }
        let from = spec[..<dash], to = spec[spec.index(after: dash)...]
        let digits = { (s: Substring) in !s.isEmpty && s.allSatisfy { $0.isASCII && $0.isNumber } }
        if from.isEmpty {
            guard digits(to), let suffix = Int64(to), suffix > 0 else { return .malformed }
            guard suffix <= size else { return .unsatisfiable }
            return .part(first: size - suffix, last: size - 1)
        }
        guard digits(from), let first = Int64(from), to.isEmpty || digits(to) else { return .malformed }
        guard let last = to.isEmpty ? size - 1 : Int64(to) else { return .malformed }
        if !to.isEmpty && last < first { return .malformed }
        guard first < size, last < size else { return .unsatisfiable }
        return .part(first: first, last: last)
    }

    func response(_ request: Request, _ context: QBTRequestContext) -> Response {
        let size = self.size
        var headers: HTTPFields = [.acceptRanges: "bytes", .contentType: MediaTypes.type(of: path)]
        headers[.contentDisposition] = "attachment; filename=\"\((path as NSString).lastPathComponent)\""
        var (first, last) = (Int64(0), size - 1)
        switch Self.span(request.headers[.range], size: size) {
        case .malformed:
            return Response(status: .badRequest, headers: [.contentLength: "0"])
        case .unsatisfiable:
            return Response(status: .rangeNotSatisfiable, headers: [.contentRange: "bytes */\(size)", .contentLength: "0"])
        case .whole:
            break
        case .part(let from, let to):
            (first, last) = (from, to)
            headers[.contentRange] = "bytes \(from)-\(to)/\(size)"
        }
        let length = last - first + 1
        // 206 only when less than the whole file is sent (qBittorrent's rule).
        let status: HTTPResponse.Status = length < size ? .partialContent : .ok
        headers[.contentLength] = String(length)
        if request.method == .head || length <= 0 { return Response(status: status, headers: headers) }
        let path = self.path, outlet = context.fileRegions, files = FileReader.shared, (start, end) = (first, last)
        return Response(status: status, headers: headers, body: ResponseBody(contentLength: Int(length)) { writer in
            let descriptor = try await files.run { () throws -> Int32 in
                let fd = open(path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { throw FileAnswerError.unreadable(path, errno) }
                return fd
            }
            defer { close(descriptor) }
            var position = start
            while position <= end {
                let count = min(end + 1 - position, Self.chunk)
                if let outlet {
                    let region = try outlet.region(descriptor: descriptor, offset: position, count: count)
                    try await writer.write(region.marker)
                    position += count
                    continue
                }
                let buffer = try await files.run { [position] () throws -> ByteBuffer in
                    var buffer = ByteBuffer()
                    let read = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: Int(count)) { raw in
                        try FileReader.pread(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: raw.prefix(Int(count))), at: position)
                    }
                    guard read > 0 else { throw FileAnswerError.shorter(path, position) }
                    return buffer
                }
                position += Int64(buffer.readableBytes)
                try await writer.write(buffer)
            }
            try await writer.finish(nil)
        })
    }

    /// sendfile regions and TLS reads of at most 4 MiB.
    static let chunk: Int64 = 4 << 20
}

enum FileAnswerError: Error {
    case unreadable(String, Int32)
    case shorter(String, Int64)
}
