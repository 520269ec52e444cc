import Foundation

/// What `--tunnel` asks for: a Cloudflare quick tunnel (a random `*.trycloudflare.com` address, no account) or a
/// named tunnel set up beforehand with `cloudflared tunnel create NAME`.
public struct TunnelConfiguration: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case quick
        case named(String)
    }

    public var kind: Kind
    /// Where cloudflared sends requests: qbtd's own address (`http://127.0.0.1:8080`).
    public var origin: String
    /// The public address when it is known beforehand (a named tunnel's hostname); otherwise read from cloudflared's
    /// output.
    public var publicURL: String?
    /// The program: `cloudflared`, looked up on PATH, or a path.
    public var executable = "cloudflared"

    public init(kind: Kind, origin: String, publicURL: String? = nil) {
        self.kind = kind
        self.origin = origin
        self.publicURL = publicURL
    }

    /// `quick`, or a tunnel's name (letters, digits, `-`, `_`, `.`).
    public static func kind(_ text: String) -> Kind? {
        if text == "quick" { return .quick }
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        guard !text.isEmpty, text.count <= 100, !text.hasPrefix("-"), text.unicodeScalars.allSatisfy(allowed.contains) else { return nil }
        return .named(text)
    }

    /// cloudflared's arguments (no automatic updates: the package manager owns the binary).
    public var arguments: [String] {
        let tls = origin.hasPrefix("https:") ? ["--no-tls-verify"] : []
        switch kind {
        case .quick: return ["tunnel", "--no-autoupdate", "--url", origin] + tls
        case .named(let name): return ["tunnel", "--no-autoupdate", "run", "--url", origin] + tls + [name]
        }
    }

    public static let installHelp = """
        cloudflared is not installed (or not on PATH): qbtd keeps serving locally without a tunnel. Install it from \
        Cloudflare's Debian repository (https://pkg.cloudflare.com/index.html: `apt-get install cloudflared`) or as a \
        single binary from https://github.com/cloudflare/cloudflared/releases, then restart qbtd.
        """
}
