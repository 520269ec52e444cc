import Foundation

/// A peer as clients name it in parameters (`torrents/addPeers`, `stream/prepare`): `ip:port` or `[ipv6]:port`.
public enum PeerAddress {
    /// `1.2.3.4:5` or `[::1]:5`.
    public static func parse(_ text: String) -> (host: String, port: Int)? {
        let t = text.trimmingCharacters(in: .whitespaces)
        let host: Substring, portText: Substring
        if t.hasPrefix("[") {
            guard let close = t.firstIndex(of: "]"), t[t.index(after: close)...].hasPrefix(":") else { return nil }
            host = t[t.index(after: t.startIndex)..<close]
            portText = t[t.index(close, offsetBy: 2)...]
        } else {
            guard let colon = t.lastIndex(of: ":") else { return nil }
            host = t[..<colon]
            portText = t[t.index(after: colon)...]
        }
        guard let port = Int(portText), (1...65535).contains(port), Self.isIPAddress(String(host)) else { return nil }
        return (String(host), port)
    }

    public static func isIPAddress(_ s: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, s, &v4) == 1 || inet_pton(AF_INET6, s, &v6) == 1
    }
}
