import CCurl
import Foundation
import SystemKit

/// One HTTP request of any method through libcurl, run on a Dispatch thread: qbt's transport, which can trust a
/// private CA (`caFile`) where URLSession on Linux trusts only the system store.
public enum HTTPExchange {
    public struct Request: Sendable {
        public var method: String
        public var url: String
        public var headers: [(String, String)]
        public var body: Data?
        public var timeout: Int
        public var caFile: String?

        public init(method: String, url: String, headers: [(String, String)] = [], body: Data? = nil, timeout: Int = 30,
                    caFile: String? = nil) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
            self.timeout = timeout
            self.caFile = caFile
        }
    }

    public struct Response: Sendable {
        public var status: Int
        /// Lower-cased names; repeated headers are joined with ", ", except `set-cookie`, whose values are joined
        /// with newlines (a cookie's expiry holds a comma).
        public var headers: [String: String]
        public var body: Data
    }

    public enum Failure: Error, Equatable {
        case timedOut
        case transport(String)
    }

    public static func perform(_ request: Request) async throws -> Response {
        try await offPool { try run(request) }
    }

    final class Collected {
        var body = Data()
        var headers: [String: String] = [:]
    }

    static func run(_ request: Request) throws -> Response {
        let collected = Collected()
        var error = [CChar](repeating: 0, count: 512)
        var timedOut: Int32 = 0
        let lines = request.headers.map { "\($0.0): \($0.1)" }
        let cLines = lines.map { strdup($0)! }
        defer { cLines.forEach { free($0) } }
        let body = request.body ?? Data()
        let status: Int = cLines.map { UnsafePointer($0) }.withUnsafeBufferPointer { headerPointers in
            body.withUnsafeBytes { bodyBytes in
                request.method.withCString { method in
                    request.url.withCString { url in
                        HTTPFetch.withOptionalCString(request.caFile) { ca in
                            var r = qbt_exchange_request(
                                method: method, url: url, headers: headerPointers.baseAddress, header_count: lines.count,
                                body: request.body == nil ? nil : bodyBytes.bindMemory(to: UInt8.self).baseAddress,
                                body_length: body.count, timeout_seconds: request.timeout, ca_file: ca)
                            let context = Unmanaged.passUnretained(collected).toOpaque()
                            return error.withUnsafeMutableBufferPointer { e in
                                Int(qbt_exchange(&r, { context, data, length in
                                    let c = Unmanaged<Collected>.fromOpaque(context!).takeUnretainedValue()
                                    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
                                    if line.hasPrefix("HTTP/") { c.headers = [:] }  // a new answer (after 100 Continue)
                                    else if let colon = line.firstIndex(of: ":") {
                                        let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
                                        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
                                        let separator = name == "set-cookie" ? "\n" : ", "
                                        c.headers[name] = c.headers[name].map { $0 + separator + value } ?? value
                                    }
                                    return length
                                }, { context, data, length in
                                    let c = Unmanaged<Collected>.fromOpaque(context!).takeUnretainedValue()
                                    if let data { c.body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: length) }
                                    return length
                                }, context, e.baseAddress, e.count, &timedOut))
                            }
                        }
                    }
                }
            }
        }
        guard status >= 0 else {
            if timedOut != 0 { throw Failure.timedOut }
            throw Failure.transport(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return Response(status: status, headers: collected.headers, body: collected.body)
    }
}
