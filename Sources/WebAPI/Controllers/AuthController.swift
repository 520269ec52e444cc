import QBTCore

/// `/api/v2/auth/*`: qBittorrent ≤5.1's login (200 `Ok.`/`Fails.`, the `SID` cookie, a ban after failures).
public struct AuthController: APIController {
    public let scope = "auth"
    let credentials: Credentials
    let sessions: SessionManager

    public init(credentials: Credentials, sessions: SessionManager) {
        self.credentials = credentials
        self.sessions = sessions
    }

    static let bannedMessage = "Your IP address has been banned after too many failed authentication attempts."

    public var actions: [String: APIAction] {
        [
            "login": APIAction(methods: .postOnly, isPublic: true) { params, caller in
                // An existing session logs in without a credential check (before the ban check), as in qBittorrent.
                if await sessions.touch(caller.sessionID) { return .text("Ok.") }
                if await sessions.isBanned(caller.clientIP) { throw QBitError.accessDenied(Self.bannedMessage) }
                let username = params["username"] ?? ""
                let password = params["password"] ?? ""
                guard await credentials.verify(username: username, password: password) else {
                    await sessions.recordFailure(caller.clientIP)
                    return .text("Fails.")
                }
                let sid = await sessions.open(for: caller.clientIP)
                return .withHeaders(.text("Ok."), [("Set-Cookie", "\(APIRouter.cookieName)=\(sid); HttpOnly; SameSite=Strict; path=/")])
            },
            "logout": .post { _, caller in
                if let sid = caller.sessionID { await sessions.close(sid) }
                return .withHeaders(.empty, [("Set-Cookie", "\(APIRouter.cookieName)=; path=/; expires=Thu, 01 Jan 1970 00:00:00 GMT")])
            },
        ]
    }
}
