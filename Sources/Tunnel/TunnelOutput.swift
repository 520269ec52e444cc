import Foundation

/// Reads cloudflared's log lines for the tunnel's public address: a quick tunnel's `https://….trycloudflare.com`,
/// or the hostname of a named tunnel's ingress rule (`"hostname":"music.example.org"`, quotes escaped or not).
public enum TunnelOutput {
    public static func publicURL(in line: String) -> String? {
        if let range = line.range(of: #"https://[a-z0-9-]+(\.[a-z0-9-]+)*\.trycloudflare\.com"#, options: .regularExpression) {
            return String(line[range])
        }
        if let range = line.range(of: #"hostname\\?"\s*:\s*\\?"[A-Za-z0-9.-]+"#, options: .regularExpression) {
            let match = line[range]
            let host = match.split(separator: "\"").last.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\\")) } ?? ""
            if host.contains("."), !host.hasPrefix("."), !host.hasSuffix(".") { return "https://" + host }
        }
        return nil
    }
}
