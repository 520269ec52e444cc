import Foundation
import QBTCore

/// `/api/v2/auth/*`. ≤5.1: 200 `Ok.`/`Fails.` and the `SID` cookie; 5.2 profile: 204/401 and `QBT_SID_<port>`.
/// Both ban an address after repeated failures.
public struct AuthController: APIController {
    public let scope = "auth"
    let credentials: Credentials
    let sessions: SessionManager
    let identity: Identity
    let gate: WebGate

    public init(credentials: Credentials, sessions: SessionManager, identity: Identity, gate: WebGate) {
        self.credentials = credentials
        self.sessions = sessions
        self.identity = identity
        self.gate = gate
    }

    static let bannedMessage = "Your IP address has been banned after too many failed authentication attempts."

    public var actions: [String: APIAction] {
        [
            "login": APIAction(methods: .postOnly, isPublic: true) { params, caller in
                let success: APIReply = identity.modernAuth ? .status(204, "") : .text("Ok.")
                // An existing session logs in without a credential check (before the ban check), as in qBittorrent.
                if caller.sync != nil { return success }
                if await sessions.isBanned(caller.clientIP) { throw QBitError.accessDenied(Self.bannedMessage) }
                let username = params["username"] ?? ""
                let password = params["password"] ?? ""
                guard await credentials.verify(username: username, password: password) else {
                    await sessions.recordFailure(caller.clientIP)
                    return identity.modernAuth ? .status(401, "Unauthorized") : .text("Fails.")
                }
                let sid = await sessions.open(for: caller.clientIP)
                let policy = gate.policy
                let cookie = Self.cookie(name: identity.cookieName(port: caller.localPort), value: sid, identity: identity,
                                         csrf: policy.csrfProtection, secure: policy.secureCookie && caller.trustworthyOrigin,
                                         timeout: policy.sessions.sessionTimeout)
                return .withHeaders(success, [("Set-Cookie", cookie)])
            },
            "logout": .post { _, caller in
                if let sid = caller.sessionID { await sessions.close(sid) }
                let name = identity.cookieName(port: caller.localPort)
                return .withHeaders(.empty, [("Set-Cookie", "\(name)=; path=/; expires=Thu, 01 Jan 1970 00:00:00 GMT")])
            },
        ]
    }

    /// qBittorrent's cookie: HttpOnly; `secure` when asked for and the origin is trustworthy (HTTPS, or a trusted
    /// proxy's `X-Forwarded-Proto: https`); SameSite Strict (≤5.1) or Lax (5.2, with an expiry) under CSRF
    /// protection, else None when secure.
    static func cookie(name: String, value: String, identity: Identity, csrf: Bool, secure: Bool = false,
                       timeout: Duration = .seconds(3600)) -> String {
        let sameSite = csrf ? (identity.modernAuth ? " SameSite=Lax;" : " SameSite=Strict;") : secure ? " SameSite=None;" : ""
        let head = "\(name)=\(value);\(secure ? " secure;" : "") HttpOnly;\(sameSite)"
        if identity.modernAuth {
            let seconds = timeout > .zero ? Double(timeout.components.seconds) : 365 * 86400
            return "\(head) path=/; expires=\(DateText.http(Date().addingTimeInterval(seconds)))"
        }
        return "\(head) path=/"
    }
}
