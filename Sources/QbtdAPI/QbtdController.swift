import Cluster
import HTTPKit
import OpenAPIDocument
import QBTCore
import Search
import Store
import SystemKit

/// `/api/v2/qbtd/*`: qbtd's own additions. API keys, any number of them, named, scoped (`APIKeyScope`), stored
/// hashed; the secret is shown once, at creation. Errors answer `{"error": "…"}`.
public struct QbtdController: APIController {
    public let scope = "qbtd"
    let keys: APIKeyRing
    let sessions: SessionManager
    let search: SearchService
    let paths: ServerPaths
    let routes: RouteList
    let membership: NodeMembership
    /// A cluster's moves between nodes (nil: a single server).
    let moves: TorrentMoves?
    let document = OpenAPIDocument.bytes  // read as the server is built, not in a request

    public init(keys: APIKeyRing, sessions: SessionManager, search: SearchService, paths: ServerPaths, routes: RouteList,
                membership: NodeMembership, moves: TorrentMoves?) {
        self.membership = membership
        self.moves = moves
        self.paths = paths
        self.routes = routes
        self.keys = keys
        self.sessions = sessions
        self.search = search
    }

    public var actions: [String: APIAction] {
        [
            "apiKeys": .qbtd(.getOrPost) { _, _ in
                .json(.array(await keys.keys.map(Self.json)))
            },
            "createAPIKey": .qbtd(.postOnly) { p, _ in
                let name = (p["name"] ?? "").trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty, name.count <= 100 else {
                    throw QBitError.badParams("name is required (1 to 100 characters)")
                }
                let scopeName = p["scope"].flatMap { $0.isEmpty ? nil : $0 } ?? APIKeyScope.full.rawValue
                guard let scope = APIKeyScope(rawValue: scopeName) else {
                    throw QBitError.badParams("scope is one of \(APIKeyScope.names), not \(scopeName)")
                }
                // A key the user chooses (one a client already stores) instead of a generated one.
                let chosen = p["key"].flatMap { $0.isEmpty ? nil : $0 }
                let created = try await keys.create(name: name, scope: scope, key: chosen)
                var o = Self.json(created.record).objectValue ?? [:]
                o["key"] = .string(created.key)
                return .json(.object(o))
            },
            "revokeAPIKey": .qbtd(.postOnly) { p, _ in
                let id = try p.required("id")
                guard try await keys.revoke(id: id) else { throw QBitError.notFound("no API key with id \(id)") }
                await sessions.dropKeySession(id)
                return .json(.object(["revoked": .string(id)]))
            },
            // What this server answers (this profile's routes), and the OpenAPI document describing every profile.
            "routes": .qbtd(.getOrPost) { _, _ in .json(.array(routes.all.map { .string($0) })) },
            "openapi.yaml": .qbtd(.getOrPost) { _, _ in
                guard let document else {
                    throw QBitError.notFound("the OpenAPI document is not installed: looked for \(OpenAPIDocument.searched.joined(separator: " and "))")
                }
                return .binary(document, contentType: "application/yaml", filename: nil)
            },
            // Every preference qBittorrent reports, per profile, with what qbtd does with it (applied, inert, fixed).
            "preferenceCatalogue": .qbtd(.getOrPost) { _, _ in
                .json(.array(PreferenceCatalogue.entries.map { Self.json($0, paths: paths) }))
            },
            // The cluster's nodes (a process without --cluster: itself), with their states, torrents, rates and disks.
            "nodes": .qbtd(.getOrPost) { _, _ in
                .json(.array(try await membership.nodes().map(Self.json)))
            },
            // Moves torrents to another node of the cluster (`hashes` separated by |, `node`, `deleteFiles`: the
            // source's copy deleted once the target runs it): BitTorrent carries them, verified piece by piece.
            "moveToNode": .qbtd(.postOnly) { p, _ in
                guard let moves else { throw ClusterError.notACluster }
                let target = try p.required("node")
                let ids = try p.required("hashes").split(separator: "|").map { $0.lowercased() }
                guard !ids.isEmpty, ids.allSatisfy(Self.isHash) else {
                    throw QBitError.badParams("hashes is one or more info hashes (40 hex digits) separated by |")
                }
                let order = try await moves.order(ids, to: target, deleteFiles: p.bool("deleteFiles") ?? false)
                return .json(.object([
                    "moving": .array(order.moving.map { .string($0) }),
                    "skipped": .array(order.skipped.map { .object(["hash": .string($0.id), "reason": .string($0.reason)]) }),
                ]))
            },
            // The moves under way in the cluster, with the target's progress (0…1).
            "moves": .qbtd(.getOrPost) { _, _ in
                guard let moves else { return .json(.array([])) }
                return .json(.array(try await moves.all().map { m in
                    .object(["hash": .string(m.id), "from": .string(m.source), "to": .string(m.target),
                             "progress": .double(m.progress), "state": .string(m.done ? "switched" : "moving"),
                             "delete_files": .bool(m.deleteFiles)])
                }))
            },
            // A Torznab indexer (Jackett, Prowlarr) becomes a search plugin: `name`, `url`, `apiKey`, `fullName`.
            "addTorznabIndexer": .qbtd(.postOnly) { p, _ in
                let name = try p.required("name"), url = try p.required("url")
                try await search.addTorznab(name: name, url: url, apiKey: p["apiKey"] ?? "", fullName: p["fullName"])
                return .json(.object(["added": .string(name)]))
            },
        ]
    }

    static func isHash(_ s: some StringProtocol) -> Bool { s.count == 40 && s.allSatisfy(\.isHexDigit) }

    static func json(_ e: PreferenceEntry, paths: ServerPaths) -> JSONValue {
        let effect = switch e.effect {
        case .applied: "applied"
        case .inert: "inert"
        case .fixed: "fixed"
        case .uiOnly: "uiOnly"
        }
        return .object([
            "key": .string(e.key), "type": .string(e.type.rawValue), "default": e.defaultValue.resolved(paths),
            "profiles": .array(Identity.Profile.allCases.filter { e.profiles.contains($0) }.map { .string($0.rawValue) }),
            "effect": .string(effect), "applier": e.applier.map { .string($0.rawValue) } ?? .null,
            "reason": e.reason.map { .string($0) } ?? .null, "alias": e.alias.map { .string($0) } ?? .null,
            "qbtdOnly": .bool(e.qbtdOnly),
        ])
    }

    static func json(_ n: NodeMembership.Node) -> JSONValue {
        let r = n.record
        return .object(["name": .string(r.name), "state": .string(n.state.rawValue), "this_node": .bool(n.isSelf),
                        "address": .string(r.address), "started_on": .int(r.startedAt), "silent_for": .int(r.silentFor),
                        "torrents": .int(Int64(r.torrents)), "dl_info_speed": .int(r.downloadRate),
                        "up_info_speed": .int(r.uploadRate), "save_path": .string(r.savePath),
                        "free_space_on_disk": .int(r.freeSpace), "dl_limit_share": .double(r.runningLimits.download),
                        "up_limit_share": .double(r.runningLimits.upload)])
    }

    static func json(_ r: APIKeyRecord) -> JSONValue {
        .object(["id": .string(r.id), "name": .string(r.name), "scope": .string(r.scope), "created_at": .int(r.createdAt),
                 "last_used_at": r.lastUsedAt.map { .int($0) } ?? .null])
    }
}
