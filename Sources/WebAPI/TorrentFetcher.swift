import Foundation
import TorrentEngine
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Downloads a .torrent named by an http(s) URL in `torrents/add`, with a size cap and a timeout.
public struct TorrentFetcher: Sendable {
    public var maxBytes = 100 * 1024 * 1024  // qBittorrent's default torrent_file_size_limit
    public var timeout: TimeInterval = 30

    public init() {}

    public enum Failure: Error { case notHTTP, status(Int), tooLarge, transport(String) }

    /// What a `torrents/add` URL names: a magnet, a bare info-hash, or an http(s) .torrent (downloaded here).
    public func source(for url: String) async -> AddTorrentRequest.Source? {
        if url.lowercased().hasPrefix("magnet:") { return .magnet(url) }
        if let magnet = Self.magnet(forBareHash: url) { return .magnet(magnet) }
        return (try? await fetch(url)).map { .metainfo($0) }
    }

    /// A bare info-hash (40 hex v1, 64 hex v2) is a magnet, as qBittorrent's `TorrentDescriptor::parse` takes it.
    static func magnet(forBareHash text: String) -> String? {
        guard text.allSatisfy(\.isHexDigit) else { return nil }
        switch text.count {
        case 40: return "magnet:?xt=urn:btih:\(text.lowercased())"
        case 64: return "magnet:?xt=urn:btmh:1220\(text.lowercased())"
        default: return nil
        }
    }


    public func fetch(_ text: String) async throws -> [UInt8] {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host != nil else { throw Failure.notHTTP }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.setValue("qBittorrent/5.1.4", forHTTPHeaderField: "User-Agent")
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForResource = timeout
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let (data, status): (Data, Int) = try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let error { continuation.resume(throwing: Failure.transport("\(error)")) }
                else { continuation.resume(returning: (data ?? Data(), (response as? HTTPURLResponse)?.statusCode ?? 0)) }
            }.resume()
        }
        guard (200..<300).contains(status) else { throw Failure.status(status) }
        guard data.count <= maxBytes else { throw Failure.tooLarge }
        return Array(data)
    }
}
