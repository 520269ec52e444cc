import HTTPTypes
import Hummingbird

/// qBittorrent's content policy for its own UI, plus what qbtd's players need: media from `blob:` URLs (Media Source
/// Extensions).
let builtInContentSecurityPolicy = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; script-src 'self' 'unsafe-inline'; object-src 'none'; form-action 'self'; frame-src 'self' blob:; media-src 'self' blob:;"

/// The headers qBittorrent puts on every answer; clickjacking protection follows the preference.
public struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    let gate: WebGate
    public init(gate: WebGate) { self.gate = gate }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        SecurityHeaders.apply(to: &response.headers, gate: gate)
        return response
    }
}

/// The headers themselves, for answers made outside the router too (the music segments' fast path).
package enum SecurityHeaders {
    package static func apply(to headers: inout HTTPFields, gate: WebGate) {
        let policy = gate.policy, https = gate.https
        let clickjacking = policy.clickjackingProtection
        headers[.xXSSProtection] = "1; mode=block"
        headers[.xContentTypeOptions] = "nosniff"
        if clickjacking { headers[.xFrameOptions] = "SAMEORIGIN" }
        // An alternative WebUI gets no opener, referrer or content policy of qBittorrent's own UI (as in qBittorrent):
        // it may load what it likes.
        let alternative = gate.alternativeWebUI != nil
        if !alternative {
            headers[.referrerPolicy] = "same-origin"
            headers[.crossOriginOpenerPolicy] = "same-origin"
        }
        let policyText = [alternative ? nil : builtInContentSecurityPolicy, clickjacking ? "frame-ancestors 'self';" : nil,
                          https ? "upgrade-insecure-requests;" : nil].compactMap { $0 }.joined(separator: " ")
        if !policyText.isEmpty { headers[.contentSecurityPolicy] = policyText }
        if https, let hsts = policy.hsts { headers[.strictTransportSecurity] = hsts }
        for header in policy.customHeaders {
            if let name = HTTPField.Name(header.name) { headers[name] = header.value }
        }
    }
}
