import CCurl
import Foundation
import Synchronization
import SystemKit

/// How qbtd's own HTTP requests leave the machine: directly, or through the proxy qBittorrent's settings name for
/// that use (`proxy_misc` for .torrent URLs, plugin installs and Torznab; `proxy_rss` for feeds).
public struct FetchRoute: Sendable, Equatable {
    /// libcurl's proxy URL (`http://host:port`, `socks5h://host:port`, …); nil: direct.
    public var proxyURL: String?
    public var username: String?
    public var password: String?

    public static let direct = FetchRoute()

    public init(proxyURL: String? = nil, username: String? = nil, password: String? = nil) {
        self.proxyURL = proxyURL
        self.username = username
        self.password = password
    }
}

/// One GET with a size cap and a timeout, run by libcurl on a Dispatch thread (never on the concurrency pool).
public enum HTTPFetch {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case notHTTP
        case status(Int)
        case tooLarge(Int)
        case transport(String)

        public var description: String {
            switch self {
            case .notHTTP: "not an http(s) URL"
            case .status(let code): "the server answered HTTP \(code)"
            case .tooLarge(let limit): "the answer is larger than \(limit) bytes"
            case .transport(let message): message
            }
        }
    }

    /// The body of a 2xx answer.
    public static func get(_ url: String, route: FetchRoute = .direct, timeout: Int = 30, maxBytes: Int,
                           userAgent: String = "qBittorrent/5.1.4") async throws -> [UInt8] {
        let page = try await fetch(url, route: route, timeout: timeout, maxBytes: maxBytes, userAgent: userAgent)
        guard !page.notModified else { throw Failure.status(304) }
        return page.body
    }

    /// What a GET brought: a 2xx answer's body and headers, or a 304 (`notModified`) to a conditional request.
    public struct Page: Sendable {
        public var status: Int
        public var body: [UInt8]
        /// The final answer's headers, names in lower case.
        public var headers: [String: String]
        public var notModified: Bool { status == 304 }
    }

    /// A GET with extra request headers (`If-None-Match: …`); a 304 is an answer, not a failure.
    public static func fetch(_ url: String, route: FetchRoute = .direct, timeout: Int = 30, maxBytes: Int,
                             userAgent: String = "qBittorrent/5.1.4", headers: [String] = []) async throws -> Page {
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { throw Failure.notHTTP }
        return try await offPool { try perform(url, route, timeout, maxBytes, userAgent, headers) }
    }

    final class Body {
        var bytes: [UInt8] = []
        var headers: [String: String] = [:]
        let limit: Int
        var overflowed = false
        init(limit: Int) { self.limit = limit }

        /// One header line; a status line starts the headers of the next answer (after a redirect).
        func header(_ line: String) {
            if line.hasPrefix("HTTP/") { headers = [:]; return }
            guard let colon = line.firstIndex(of: ":") else { return }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    static func perform(_ url: String, _ route: FetchRoute, _ timeout: Int, _ maxBytes: Int, _ userAgent: String,
                        _ extraHeaders: [String]) throws -> Page {
        let body = Body(limit: maxBytes)
        var error = [CChar](repeating: 0, count: 512)
        let lines = extraHeaders.map { strdup($0) }
        defer { lines.forEach { free($0) } }
        let status: Int = url.withCString { u in
            userAgent.withCString { agent in
                (route.proxyURL ?? "").withCString { proxy in
                    withOptionalCString(route.username) { user in
                        withOptionalCString(route.password) { password in
                            lines.map { UnsafePointer($0) }.withUnsafeBufferPointer { headerLines in
                                var request = qbt_fetch_request(url: u, user_agent: agent, timeout_seconds: timeout, proxy: proxy,
                                                                proxy_username: user, proxy_password: password,
                                                                headers: headerLines.baseAddress, header_count: headerLines.count)
                                let context = Unmanaged.passUnretained(body).toOpaque()
                                return error.withUnsafeMutableBufferPointer { e in
                                    Int(qbt_fetch(&request, { context, data, length in
                                        let body = Unmanaged<Body>.fromOpaque(context!).takeUnretainedValue()
                                        guard body.bytes.count + length <= body.limit else {
                                            body.overflowed = true
                                            return 0
                                        }
                                        if let data { body.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length)) }
                                        return length
                                    }, { context, data, length in
                                        let body = Unmanaged<Body>.fromOpaque(context!).takeUnretainedValue()
                                        if let data {
                                            body.header(String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self))
                                        }
                                        return length
                                    }, context, e.baseAddress, e.count))
                                }
                            }
                        }
                    }
                }
            }
        }
        if body.overflowed { throw Failure.tooLarge(maxBytes) }
        guard status >= 0 else {
            throw Failure.transport(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        guard (200..<300).contains(status) || status == 304 else { throw Failure.status(status) }
        return Page(status: status, body: body.bytes, headers: body.headers)
    }

    static func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
        guard let text else { return body(nil) }
        return text.withCString { body($0) }
    }
}
