import Foundation
import HTTPKit
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

    public var actions: [String: APIAction] {
        [
            "login": APIAction(methods: .postOnly, isPublic: true) { params, caller in
                let success: APIReply = identity.modernAuth ? .status(204, "") : .text("Ok.")
                // An existing session logs in without a credential check (before the ban check), as in qBittorrent.
                if caller.sync != nil { return success }
                if await sessions.isBanned(caller.clientIP) { throw QBitError.accessDenied(SessionCookie.bannedMessage) }
                let username = params["username"] ?? ""
                let password = params["password"] ?? ""
                guard await credentials.verify(username: username, password: password) else {
                    await sessions.recordFailure(caller.clientIP)
                    return identity.modernAuth ? .status(401, "Unauthorized") : .text("Fails.")
                }
                let sid = await sessions.open(for: caller.clientIP, shared: true)
                let policy = gate.policy
                let cookie = SessionCookie.make(name: identity.cookieName(port: caller.localPort), value: sid, identity: identity,
                                         csrf: policy.csrfProtection, secure: policy.secureCookie && caller.trustworthyOrigin,
                                         timeout: policy.sessions.sessionTimeout)
                return .withHeaders(success, [("Set-Cookie", cookie)])
            },
            "logout": .post { _, caller in
                if let sid = caller.sessionID { await sessions.close(sid) }
                let name = identity.cookieName(port: caller.localPort)
                return .withHeaders(.empty, [("Set-Cookie", SessionCookie.expired(name: name))])
            },
        ]
    }
}
