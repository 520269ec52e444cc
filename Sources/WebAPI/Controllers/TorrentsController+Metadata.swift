import Foundation
import HTTPFetch
import HTTPKit
import QBTCore
import TorrentEngine

/// qBittorrent 5.2's metadata routes: `fetchMetadata` (a magnet's metadata fetched without adding it, or a URL's
/// .torrent downloaded), `parseMetadata` (uploaded .torrent files read), `saveMetadata` (the .torrent of either).
/// Every call answers at once: 202 while the work runs, 200 with the torrent-info object once it is done.
extension TorrentsController {
    var metadataActions: [String: APIAction] {
        [
            "fetchMetadata": .post { p, _ in try await fetchMetadata(p) }.since(.v5_2),
            "parseMetadata": .post { p, _ in try parseMetadata(p) }.since(.v5_2),
            "saveMetadata": .get { p, _ in try await saveMetadata(p) }.since(.v5_2),
        ]
    }

    /// `source`, trimmed and percent-decoded.
    private func metadataSource(_ p: Parameters) throws -> String {
        let raw = (p["source"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !raw.isEmpty else { throw QBitError.badParams("Must specify URI or hash") }
        return raw.removingPercentEncoding ?? raw
    }

    /// A magnet or a bare info-hash (as `TorrentDescriptor::parse` takes them); nil for anything else.
    static func parseSource(_ source: String) -> ParsedTorrent? {
        if source.lowercased().hasPrefix("magnet:") { return try? ParsedTorrent(.magnet(source)) }
        return TorrentFetcher.magnet(forBareHash: source).flatMap { try? ParsedTorrent(.magnet($0)) }
    }

    func fetchMetadata(_ p: Parameters) async throws -> APIReply {
        let source = try metadataSource(p)
        if let name = p["downloader"], !name.isEmpty, !(await searchPlugins()).contains(name) {
            throw QBitError.badParams("downloader must be a valid search plugin")
        }
        let parsed = Self.parseSource(source)
        if let id = parsed?.id ?? metadata.torrent(forSource: source) { return try await metadataAnswer(id, magnet: parsed) }
        guard let scheme = URL(string: source)?.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw QBitError.badParams("Unable to parse '\(source)'")
        }
        if metadata.startDownload(source) {
            let route = settings.fetchRoute(for: .misc)
            Task { await download(source, route: route) }
        }
        return .accepted(.object([:]))
    }

    /// The torrent-info object when the metadata is known, else 202 with the torrent's hashes (a fetch started).
    private func metadataAnswer(_ id: TorrentID, magnet: ParsedTorrent?) async throws -> APIReply {
        if let entry = metadata.entry(id) { return .json(Self.torrentInfo(id, entry.summary)) }
        let magnet = try magnet ?? ParsedTorrent(.magnet("magnet:?xt=urn:btih:\(id)"))
        let pending = APIReply.accepted(Self.hashes(id, magnet.summary))
        if await service.exists(id) {
            // In the transfer list: its own metadata (not cached, as qBittorrent does), or wait for it.
            guard let bytes = try? await service.sources.export(id), let torrent = try? ParsedTorrent(.metainfo(bytes)) else {
                return pending
            }
            var summary = torrent.summary
            summary.webSeeds = (try? await service.sources.webSeeds(id)) ?? summary.webSeeds
            return .json(Self.torrentInfo(id, summary))
        }
        guard case .ready(let bytes) = try await service.sources.prefetchMetadata(magnet) else { return pending }
        guard let torrent = try? ParsedTorrent(.metainfo(bytes)) else { return pending }
        // A magnet's descriptor: its own trackers and web seeds; no creator, date or comment.
        var summary = torrent.summary
        let said = magnet.summary
        (summary.trackers, summary.webSeeds) = (said.trackers, said.webSeeds)
        (summary.createdBy, summary.creationDate, summary.comment) = ("", nil, "")
        metadata.store(.init(metainfo: bytes, summary: summary), as: id)
        return .json(Self.torrentInfo(id, summary))
    }

    /// Downloads a URL's .torrent in the background; a magnet it redirects to starts a metadata fetch. A failure
    /// only clears the mark, so the next poll tries again (qBittorrent reports nothing either).
    private func download(_ url: String, route: FetchRoute) async {
        defer { metadata.endDownload(url) }
        guard let source = await fetcher.source(for: url, route: route), let parsed = try? ParsedTorrent(source) else { return }
        metadata.remember(source: url, as: parsed.id)
        switch source {
        case .metainfo(let bytes): metadata.store(.init(metainfo: bytes, summary: parsed.summary), as: parsed.id)
        case .magnet: _ = try? await service.sources.prefetchMetadata(parsed)
        }
    }

    func parseMetadata(_ p: Parameters) throws -> APIReply {
        guard !p.files.isEmpty else { throw QBitError.badParams("Must specify torrent file(s)") }
        var out: [JSONValue] = []
        for file in p.files {
            guard let torrent = try? ParsedTorrent(.metainfo(file.data)) else {
                throw QBitError.unsupportedMediaType("'\(file.filename)' is not a valid torrent file.")
            }
            let summary = torrent.summary
            metadata.store(.init(metainfo: file.data, summary: summary), as: torrent.id)
            out.append(Self.torrentInfo(torrent.id, summary))
        }
        return .json(.array(out))
    }

    func saveMetadata(_ p: Parameters) async throws -> APIReply {
        let source = try metadataSource(p)
        guard let id = metadata.torrent(forSource: source) ?? Self.parseSource(source)?.id else { throw QBitError.notFound() }
        guard let entry = metadata.entry(id) else { throw QBitError.conflict("Metadata is not yet available") }
        return .binary(entry.metainfo, contentType: "application/x-bittorrent", filename: "\(id).torrent")
    }

    /// `{"hash", "infohash_v1", "infohash_v2"}`: what is known before the metadata.
    static func hashes(_ id: TorrentID, _ summary: MetainfoSummary) -> JSONValue {
        .object(["hash": .string(id), "infohash_v1": .string(summary.infoHashV1), "infohash_v2": .string(summary.infoHashV2)])
    }

    /// qBittorrent's torrent-info object.
    static func torrentInfo(_ id: TorrentID, _ s: MetainfoSummary) -> JSONValue {
        .object([
            "hash": .string(id), "infohash_v1": .string(s.infoHashV1), "infohash_v2": .string(s.infoHashV2),
            "info": .object([
                "files": .array(s.files.map { .object(["path": .string($0.path), "length": .int($0.length)]) }),
                "length": .int(s.files.reduce(0) { $0 + $1.length }),
                "name": .string(s.name), "piece_length": .int(Int64(s.pieceLength)),
                "pieces_num": .int(Int64(s.pieceCount)), "private": .bool(s.isPrivate),
            ]),
            "trackers": .array(s.trackers.map { .object(["url": .string($0.url), "tier": .int(Int64($0.tier))]) }),
            "webseeds": .array(s.webSeeds.map { .string($0) }),
            "created_by": .string(s.createdBy), "creation_date": .int(s.creationDate ?? -1), "comment": .string(s.comment),
        ])
    }
}
