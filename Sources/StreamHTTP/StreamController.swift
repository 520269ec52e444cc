import Foundation
import HTTPKit
import QBTCore
import Streaming

/// `/api/v2/stream/*`: prepare a file of a torrent for playback, list and stop streams. Errors are JSON.
public struct StreamController: APIController {
    public let scope = "stream"
    let streams: StreamService

    public init(streams: StreamService) { self.streams = streams }

    public var actions: [String: APIAction] {
        [
            "prepare": .qbtd(.postOnly) { p, caller in try await prepare(p, caller) },
            "stop": .qbtd(.postOnly) { p, _ in
                let id = try p.required("streamId")
                try await streams.stop(id)
                return .json(.object(["stopped": .string(id)]))
            },
            "stopAll": .qbtd(.postOnly) { _, _ in .json(.object(["stopped": .int(Int64(await streams.stopAll()))])) },
            "list": .qbtd(.getOrPost) { _, caller in
                .json(.array(await streams.list().map { report in
                    var o = Self.json(report.stream, caller: caller).objectValue ?? [:]
                    o["position"] = .int(report.position)
                    o["bufferedRanges"] = .array(report.buffered.map { .array($0.map { .int($0) }) })
                    o["downloadRate"] = .int(Int64(report.downloadRate))
                    o["peers"] = .int(Int64(report.peers))
                    o["readers"] = .int(Int64(report.readers))
                    o["state"] = .string(report.state)
                    return .object(o)
                }))
            },
        ]
    }

    func prepare(_ p: Parameters, _ caller: APICaller) async throws -> APIReply {
        let source: StreamService.Source
        if let magnet = p["magnetUri"], !magnet.isEmpty {
            guard magnet.lowercased().hasPrefix("magnet:") else { throw QBitError.badParams("magnetUri must be a magnet: link") }
            source = .magnet(magnet)
        } else if let hash = p["hash"], !hash.isEmpty {
            source = .hash(hash)
        } else if let file = p.files.first {
            source = .metainfo(file.data)
        } else {
            throw QBitError.badParams("give magnetUri, hash, or a .torrent file")
        }
        var fileIndex: Int?
        if let text = p["fileIndex"], !text.isEmpty {
            guard let index = Int(text) else { throw QBitError.badParams("fileIndex must be a number") }
            fileIndex = index
        }
        let trackers = (p["trackers"] ?? "").split(whereSeparator: { $0 == "|" || $0.isNewline })
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        // qbtd's addition: peers to connect to at once (`host:port`, `|`-separated), as `torrents/addPeers` takes them.
        let peers = (p["peers"] ?? "").split(separator: "|").compactMap { PeerAddress.parse(String($0)) }
        let stream = try await streams.prepare(source, fileIndex: fileIndex, title: p["streamTitle"], trackers: trackers,
                                               peers: peers.map { ($0.host, $0.port) }, networkMbps: p.double("networkMbps"))
        return .json(Self.json(stream, caller: caller))
    }

    static func json(_ s: StreamService.Stream, caller: APICaller) -> JSONValue {
        .object([
            "streamId": .string(s.id), "playbackUrl": .string("\(caller.trustworthyOrigin ? "https" : "http")://\(caller.host ?? "127.0.0.1:\(caller.localPort)")\(caller.pathPrefix)/stream/\(s.id)"),
            "infoHash": .string(s.torrentID), "fileName": .string(s.fileName), "fileSize": .int(s.file.size),
            "fileIndex": .int(Int64(s.fileIndex)), "mimeType": .string(s.mimeType), "streamTitle": .string(s.title),
        ])
    }
}
