import Foundation
import HTTPFetch
import TorrentEngine

/// Downloads a .torrent named by an http(s) URL in `torrents/add`, with a size cap and a timeout, by the route
/// `proxy_misc` chooses.
public struct TorrentFetcher: Sendable {
    public var maxBytes = 100 * 1024 * 1024  // qBittorrent's default torrent_file_size_limit
    public var timeout = 30

    public init() {}

    /// What a `torrents/add` URL names: a magnet, a bare info-hash, or an http(s) .torrent (downloaded here).
    public func source(for url: String, route: FetchRoute) async -> AddTorrentRequest.Source? {
        if url.lowercased().hasPrefix("magnet:") { return .magnet(url) }
        if let magnet = Self.magnet(forBareHash: url) { return .magnet(magnet) }
        return (try? await fetch(url, route: route)).map { .metainfo($0) }
    }

    /// A bare info-hash (40 hex or 32 base32 v1, 64 hex v2) is a magnet, as qBittorrent's `TorrentDescriptor::parse`
    /// takes it.
    public static func magnet(forBareHash text: String) -> String? {
        if text.count == 32, text.uppercased().allSatisfy({ ("A"..."Z").contains($0) || ("2"..."7").contains($0) }) {
            return "magnet:?xt=urn:btih:\(text.uppercased())"
        }
        guard text.allSatisfy(\.isHexDigit) else { return nil }
        switch text.count {
        case 40: return "magnet:?xt=urn:btih:\(text.lowercased())"
        case 64: return "magnet:?xt=urn:btmh:1220\(text.lowercased())"
        default: return nil
        }
    }

    public func fetch(_ url: String, route: FetchRoute) async throws -> [UInt8] {
        try await HTTPFetch.get(url, route: route, timeout: timeout, maxBytes: maxBytes)
    }
}
