import Foundation
import QBTCore
import Synchronization

/// The WebUI security preferences, read on every request (so kept in a snapshot, not behind an actor).
public struct WebSecurityPolicy: Sendable, Equatable {
    public var csrfProtection = true
    public var hostHeaderValidation = true
    public var clickjackingProtection = true
    /// `web_ui_domain_list`: `;`-separated host names, `*` wildcards allowed.
    public var domains: [String] = ["*"]
    public var bypassLocalAuth = false
    public var bypassSubnets: [Subnet] = []
    public var reverseProxy = false
    public var trustedProxies: [Subnet] = []
    public var sessions = SessionManager.Policy()
    /// `web_ui_secure_cookie_enabled`: the session cookie is `secure` when the origin is trustworthy.
    public var secureCookie = true
    /// `web_ui_use_custom_http_headers_enabled` + `web_ui_custom_http_headers`: sent with every answer.
    public var customHeaders: [HeaderLine] = []
    /// qbtd's `web_ui_hsts_*`: `Strict-Transport-Security` over HTTPS; nil when off.
    public var hsts: String?
    /// `alternative_webui_enabled` + `alternative_webui_path`: the folder `/` serves instead of qbtd's own interface.
    public var alternativeWebUI: String?

    public init() {}

    /// From the preferences.
    public init(_ p: PreferenceValues) {
        csrfProtection = p[\.webUICSRFProtectionEnabled]
        hostHeaderValidation = p[\.webUIHostHeaderValidationEnabled]
        clickjackingProtection = p[\.webUIClickjackingProtectionEnabled]
        domains = p[\.webUIDomainList].split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        bypassLocalAuth = p[\.bypassLocalAuth]
        if p[\.bypassAuthSubnetWhitelistEnabled] {
            bypassSubnets = Subnet.list(p[\.bypassAuthSubnetWhitelist], separators: "\n,")
        }
        reverseProxy = p[\.webUIReverseProxyEnabled]
        trustedProxies = Subnet.list(p[\.webUIReverseProxiesList], separators: ";,")
        sessions.sessionTimeout = .seconds(p[\.webUISessionTimeout])
        sessions.maxFailures = p[\.webUIMaxAuthFailCount]
        sessions.banDuration = .seconds(p[\.webUIBanDuration])
        sessions.countLimit = p[\.webUISessionsCountLimit]
        secureCookie = p[\.webUISecureCookieEnabled]
        if p[\.webUIUseCustomHTTPHeadersEnabled] {
            customHeaders = Self.headerLines(p[\.webUICustomHTTPHeaders]).headers
        }
        if p[\.webUIHSTSEnabled] {
            let age = max(0, p[\.webUIHSTSMaxAge])
            hsts = "max-age=\(age)" + (p[\.webUIHSTSIncludeSubdomains] ? "; includeSubDomains" : "")
        }
        let alternative = p[\.alternativeWebUIPath]
        if p[\.alternativeWebUIEnabled], !alternative.isEmpty { alternativeWebUI = alternative }
    }

    /// From `app/preferences` keys; a key left out has its default.
    public init(_ p: [String: JSONValue]) { self.init(PreferenceValues(p)) }

    /// qBittorrent's custom header lines: `Name: value` per line, both trimmed; a line without `:` is skipped
    /// (and reported), as is a name or value HTTP cannot carry.
    /// RFC 9110's token characters: what a header name may hold.
    static let headerNameCharacters = CharacterSet(
        charactersIn: "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")

    public static func headerLines(_ text: String) -> (headers: [HeaderLine], skipped: [String]) {
        var headers: [HeaderLine] = [], skipped: [String] = []
        for line in text.trimmingCharacters(in: .whitespacesAndNewlines).split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { skipped.append(String(line)); continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, name.unicodeScalars.allSatisfy(Self.headerNameCharacters.contains),
                  value.unicodeScalars.allSatisfy({ $0 == "\t" || (0x20..<0x7f).contains($0.value) || $0.value >= 0x80 })
            else { skipped.append(String(line)); continue }
            headers.append(HeaderLine(name: name, value: value))
        }
        return (headers, skipped)
    }
}

/// One of `web_ui_custom_http_headers`'s `Name: value` lines.
public struct HeaderLine: Sendable, Equatable {
    public var name: String
    public var value: String
}

/// An IPv4 or IPv6 network (`10.0.0.0/8`, `::1`, `192.168.1.7`).
public struct Subnet: Sendable, Equatable {
    let address: [UInt8]
    let prefix: Int

    public init?(_ text: String) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "/", maxSplits: 1)
        guard let first = parts.first, let bytes = Self.bytes(String(first)) else { return nil }
        let bits = bytes.count * 8
        let prefix = parts.count == 2 ? Int(parts[1]) : bits
        guard let prefix, (0...bits).contains(prefix) else { return nil }
        address = bytes
        self.prefix = prefix
    }

    static func list(_ text: String, separators: String) -> [Subnet] {
        text.split(whereSeparator: { separators.contains($0) }).compactMap { Subnet(String($0)) }
    }

    public func contains(_ ip: String) -> Bool {
        guard var bytes = Self.bytes(ip) else { return false }
        // An IPv4-mapped IPv6 address matches IPv4 networks.
        if bytes.count == 16, address.count == 4, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            bytes = Array(bytes[12...])
        }
        guard bytes.count == address.count else { return false }
        var remaining = prefix
        for i in 0..<bytes.count where remaining > 0 {
            let take = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xff << (8 - take))
            if bytes[i] & mask != address[i] & mask { return false }
            remaining -= take
        }
        return true
    }

    static func bytes(_ ip: String) -> [UInt8]? {
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, ip, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        if inet_pton(AF_INET6, ip, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    static func isLoopback(_ ip: String) -> Bool {
        Subnet("127.0.0.0/8")!.contains(ip) || Subnet("::1")!.contains(ip)
    }
}

/// The current policy, swapped whole when the preferences change, and whether new connections speak HTTPS.
public final class WebGate: Sendable {
    private let state: Mutex<WebSecurityPolicy>
    private let httpsState = Mutex(false)
    /// `--webui-dir`: an alternative WebUI folder that wins over the preferences.
    public let webUIDirectory: String?
    public init(_ policy: WebSecurityPolicy, webUIDirectory: String? = nil) {
        state = Mutex(policy)
        self.webUIDirectory = webUIDirectory
    }
    public var policy: WebSecurityPolicy { state.withLock { $0 } }
    /// The alternative WebUI folder in use, if any: `--webui-dir`, else the preferences'.
    public var alternativeWebUI: String? { webUIDirectory ?? policy.alternativeWebUI }
    public func update(_ policy: WebSecurityPolicy) { state.withLock { $0 = policy } }
    /// qBittorrent's `m_isHttpsEnabled`: the server serves HTTPS (set by the TLS switch).
    public var https: Bool { httpsState.withLock { $0 } }
    public func setHTTPS(_ on: Bool) { httpsState.withLock { $0 = on } }

    /// The first value of a forwarded header a proxy chain may have appended to (`a, b`), when it is a plausible
    /// host[:port].
    public static func firstForwarded(_ value: String) -> String? {
        let first = value.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]_")
        guard !first.isEmpty, first.count <= 255, first.unicodeScalars.allSatisfy(allowed.contains) else { return nil }
        return first
    }

    /// A proxy's `X-Forwarded-Prefix` as a path prefix: `/a/b` (no trailing slash), segments of letters, digits and
    /// `-._~` only; "" for `/`; nil for anything else (it is ignored).
    public static func pathPrefix(_ value: String) -> String? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("/"), trimmed.count <= 200 else { return nil }
        let segments = trimmed.split(separator: "/", omittingEmptySubsequences: true)
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        guard segments.allSatisfy({ $0 != "." && $0 != ".." && $0.unicodeScalars.allSatisfy(allowed.contains) }) else { return nil }
        return segments.isEmpty ? "" : "/" + segments.joined(separator: "/")
    }

    /// qBittorrent's `isOriginTrustworthy`: HTTPS, or a trusted reverse proxy saying `X-Forwarded-Proto: https`.
    public func isOriginTrustworthy(forwardedProto: String?, socketIP: String) -> Bool {
        if https { return true }
        let p = policy
        guard p.reverseProxy, forwardedProto?.lowercased() == "https" else { return false }
        return p.trustedProxies.contains { $0.contains(socketIP) }
    }

    /// The client's address: the socket peer, or — when it is a trusted reverse proxy — the nearest address
    /// in `X-Forwarded-For` that is not itself a trusted proxy.
    public func clientIP(socketIP: String, forwardedFor: String?) -> String {
        let p = policy
        guard p.reverseProxy, p.trustedProxies.contains(where: { $0.contains(socketIP) }), let forwardedFor else { return socketIP }
        for candidate in forwardedFor.split(separator: ",").reversed() {
            let ip = candidate.trimmingCharacters(in: .whitespaces)
            guard Subnet.bytes(ip) != nil else { continue }
            if !p.trustedProxies.contains(where: { $0.contains(ip) }) { return ip }
        }
        return socketIP
    }

    /// qBittorrent's `isCrossSiteRequest`: Origin, else Referer, must name the host and port the request was
    /// sent to (`X-Forwarded-Host` or `Host`); a request with neither passes.
    public static func isCrossSite(origin: String?, referer: String?, host: String?, forwardedHost: String?) -> Bool {
        let target = (forwardedHost ?? host ?? "").lowercased()
        guard let source = origin ?? referer, !source.isEmpty else { return false }
        guard let url = URL(string: source), let sourceHost = url.host?.lowercased() else { return true }
        let (targetHost, targetPort) = Self.splitHostPort(target)
        let sourcePort = url.port ?? (url.scheme == "https" ? 443 : 80)
        return sourceHost != targetHost || sourcePort != (targetPort ?? (url.scheme == "https" ? 443 : 80))
    }

    /// qBittorrent's `validateHostHeader`: a port that is not ours fails; then the host must be our address
    /// or match the domain list.
    public func isValidHost(_ host: String?, localIP: String, localPort: Int) -> Bool {
        let p = policy
        guard let host, !host.isEmpty else { return true }  // HTTP/1.0 clients may omit it
        let (name, port) = Self.splitHostPort(host.lowercased())
        if let port, port != localPort { return false }
        if name == localIP.lowercased() || Subnet.bytes(name) != nil && name == localIP { return true }
        return p.domains.contains { Self.wildcard($0.lowercased(), matches: name) }
    }

    static func splitHostPort(_ text: String) -> (String, Int?) {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return (text, nil) }
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            return (host, rest.hasPrefix(":") ? Int(rest.dropFirst()) : nil)
        }
        let parts = text.split(separator: ":", maxSplits: 1)
        return (parts.first.map(String.init) ?? "", parts.count == 2 ? Int(parts[1]) ?? -1 : nil)
    }

    static func wildcard(_ pattern: String, matches text: String) -> Bool {
        if pattern == "*" { return true }
        let regex = "^" + NSRegularExpression.escapedPattern(for: pattern).replacingOccurrences(of: "\\*", with: ".*") + "$"
        return text.range(of: regex, options: .regularExpression) != nil
    }
}
