import Foundation
import QBTCore

/// The session cookie qBittorrent sets, and what a banned address is told.
public enum SessionCookie {
    public static let bannedMessage = "Your IP address has been banned after too many failed authentication attempts."

    /// qBittorrent's cookie: HttpOnly; `secure` when asked for and the origin is trustworthy (HTTPS, or a trusted
    /// proxy's `X-Forwarded-Proto: https`); SameSite Strict (≤5.1) or Lax (5.2, with an expiry) under CSRF
    /// protection, else None when secure.
    public static func make(name: String, value: String, identity: Identity, csrf: Bool, secure: Bool = false,
                            timeout: Duration = .seconds(3600)) -> String {
        let sameSite = csrf ? (identity.modernAuth ? " SameSite=Lax;" : " SameSite=Strict;") : secure ? " SameSite=None;" : ""
        let head = "\(name)=\(value);\(secure ? " secure;" : "") HttpOnly;\(sameSite)"
        if identity.modernAuth {  // QNetworkCookie's order and date: expires before path
            let seconds = timeout > .zero ? Double(timeout.components.seconds) : 365 * 86400
            return "\(head) expires=\(DateText.cookie(Date().addingTimeInterval(seconds))); path=/"
        }
        return "\(head) path=/"
    }

    /// The cookie that ends a session at logout: empty, expired a day ago (qBittorrent's), `expires` before `path`.
    public static func expired(name: String) -> String {
        "\(name)=; expires=\(DateText.cookie(Date().addingTimeInterval(-86400))); path=/"
    }
}
