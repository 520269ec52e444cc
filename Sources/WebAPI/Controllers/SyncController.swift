import Foundation
import HTTPKit
import QBTCore
import Synchronization
import SystemKit
import TorrentEngine

/// `/api/v2/sync/*`: snapshots of the whole server (`maindata`) and of one torrent's peers, sent as
/// diffs against what this client last acknowledged (its `rid`).
public struct SyncController: APIController {
    public let scope = "sync"
    let service: TorrentService
    let settings: ServerSettings
    let identity: Identity
    let rows: RowCache

    public init(service: TorrentService, settings: ServerSettings, identity: Identity, rows: RowCache? = nil) {
        self.service = service
        self.settings = settings
        self.identity = identity
        self.rows = rows ?? RowCache(identity: identity)
    }

    public var actions: [String: APIAction] {
        [
            "maindata": .get { p, caller in
                let data = await mainData()
                var fresh = MainDataSync()
                let step = caller.sync.map { slot in
                    slot.baselines.maindata.withLock { sync in
                        if identity.node != nil { sync.startAnywhere() }
                        return sync.advance(rid: p.int("rid") ?? 0, data: data)
                    }
                }
                    ?? fresh.advance(rid: 0, data: data)
                // A full answer for a big library is made on the background threads and sent as it is made, from the
                // shared rows (as torrents/info); a diff is small.
                if step.base == nil && TorrentsController.isBig(data.rows.rows.count) {
                    return .jsonParts(MainDataSync.fullParts(data, rid: step.rid))
                }
                return .jsonBytes(MainDataSync.answer(from: step.base, to: data, rid: step.rid).bytes)
            },
            "torrentPeers": .get { p, caller in
                // No hash is simply an unknown torrent: 404, as qBittorrent answers.
                let id = (p["hash"] ?? "").lowercased()
                guard await service.exists(id) else { throw QBitError.notFound() }
                let peers = try await service.swarm.peers(id)
                var table: [String: JSONValue] = [:]
                let flags = settings[\.resolvePeerCountries]
                let totalSize = await service.view(id)?.status.totalSize ?? 0
                for peer in peers { table[Self.peerKey(peer)] = Self.json(peer, identity, totalSize: totalSize) }
                let data: [String: JSONValue] = ["show_flags": .bool(flags), "peers": .object(table)]
                let answer = Self.peersAnswer(caller.sync, rid: p.int("rid") ?? 0, data: data, collections: ["peers"])
                return .json(.object(answer))
            },
        ]
    }

    /// A full `torrentPeers` update is the data as it is, `"peers": {}` included (a full `maindata` update
    /// leaves out empty collections: `MainDataSync`).
    static func peersAnswer(_ slot: SessionMemory?, rid: Int, data: [String: JSONValue], collections: Set<String>) -> [String: JSONValue] {
        guard let slot else {
            var fresh = SyncState()
            return fresh.answer(rid: 0, data: data, collections: collections, dropEmptyInFull: false)
        }
        return slot.baselines.peers.withLock { $0.answer(rid: rid, data: data, collections: collections, dropEmptyInFull: false) }
    }

    static func peerKey(_ p: PeerEntry) -> String { p.ip.contains(":") ? "[\(p.ip)]:\(p.port)" : "\(p.ip):\(p.port)" }

    /// A peer as `sync/torrentPeers` writes it. 5.2 adds `host_name` ("" as qbtd does not look names up) and always
    /// writes `country`/`country_code` (null without a GeoIP database); 5.3 adds `contribution`: what we sent the peer
    /// against what it has (qBittorrent's formula).
    static func json(_ p: PeerEntry, _ identity: Identity, totalSize: Int64) -> JSONValue {
        var o: [String: JSONValue] = [
            "ip": .string(p.ip), "port": .int(Int64(p.port)), "client": .string(p.client),
            "peer_id_client": .string(p.peerID), "progress": .double(p.progress), "dl_speed": .int(Int64(p.downloadRate)),
            "up_speed": .int(Int64(p.uploadRate)), "downloaded": .int(p.downloaded), "uploaded": .int(p.uploaded),
            "connection": .string(p.connection), "flags": .string(p.flags), "flags_desc": .string(p.flagsDescription),
            "relevance": .double(p.relevance), "files": .string(p.files),
        ]
        if identity.profile >= .v5_2 {
            o["host_name"] = .string("")
            o["country"] = .null
            o["country_code"] = .null
        }
        if identity.profile >= .v5_3 { o["contribution"] = .double(contribution(p, totalSize: totalSize)) }
        return .object(o)
    }

    static func contribution(_ p: PeerEntry, totalSize: Int64) -> Double {
        let uploaded = p.uploaded
        guard uploaded > 0 else { return 0 }
        let size = Double(totalSize <= 0 ? uploaded : totalSize)
        let progressBytes = p.progress * size
        return Double(uploaded) / (progressBytes <= 0 ? size : progressBytes)
    }

    /// Everything a WebUI shows, as one snapshot: the torrents as shared encoded rows, the rest as values.
    func mainData() async -> MainData {
        let board = await service.freshListing()
        var categories: [String: JSONValue] = [:]
        for c in await service.labels.categories { categories[c.name] = TorrentsController.json(c, identity) }
        return MainData(rows: rows.rows(for: board), rest: [
            "categories": .object(categories),
            "tags": .array(await service.labels.tags.map { .string($0) }),
            "trackers": rows.trackers(for: board),
            "server_state": .object(await serverState()),
        ])
    }

    func serverState() async -> [String: JSONValue] {
        let t = await service.session.clusterTransfer()
        let alternative = settings.alternativeSpeed
        let queueing = settings[\.queueingEnabled]
        let ratio = t.downloadedAllTime > 0 ? String(format: "%.2f", Double(t.uploadedAllTime) / Double(t.downloadedAllTime)) : "-"
        var s: [String: JSONValue] = [
            "alltime_dl": .int(t.downloadedAllTime), "alltime_ul": .int(t.uploadedAllTime),
            "average_time_queue": .int(0), "connection_status": .string(t.connectionStatus),
            "dht_nodes": .int(t.counters.dhtNodes), "dl_info_data": .int(t.downloadedSession),
            "dl_info_speed": .int(Int64(t.downloadSpeed)), "dl_rate_limit": .int(Int64(t.downloadLimit)),
            "free_space_on_disk": .int(DiskSpace.available(at: settings.paths.downloadRoot) ?? 0), "global_ratio": .string(ratio),
            "queued_io_jobs": .int(t.counters.queuedDiskJobs), "queueing": .bool(queueing),
            "read_cache_hits": .string("0"), "read_cache_overload": .string("0"), "write_cache_overload": .string("0"),
            "refresh_interval": .int(Int64(settings[\.refreshInterval])),
            "total_buffers_size": .int(0), "total_peer_connections": .int(t.counters.peerConnections),
            "total_queued_size": .int(0), "total_wasted_session": .int(t.counters.wastedBytes),
            "up_info_data": .int(t.uploadedSession), "up_info_speed": .int(Int64(t.uploadSpeed)),
            "up_rate_limit": .int(Int64(t.uploadLimit)), "use_alt_speed_limits": .bool(alternative),
        ]
        if identity.profile < .v5_2 { s["use_subcategories"] = .bool(service.labels.subcategoriesEnabled) }
        if identity.profile != .v4_6 {
            s["last_external_address_v4"] = .string("")
            s["last_external_address_v6"] = .string("")
        }
        if identity.profile >= .v5_3 {
            s["queued_tracker_announces"] = .int(t.counters.queuedTrackerAnnounces)
            s["request_latency"] = .int(t.counters.requestLatency)
            s["session_state"] = .bool(await service.session.isPaused)
        }
        return s
    }
}
