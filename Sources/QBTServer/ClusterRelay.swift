import Cluster
import Foundation
import HTTPKit
import QBTCore
import Synchronization

/// A cluster node's WebAPI calls for torrents other nodes run: each goes, with the hashes that node runs, to that
/// node through the catalogue (`CommandRelay`), which runs it with its own router and sends its answer back; the
/// torrents this node runs are answered here. `hashes=all` reaches every node. Reads follow writes across nodes: a
/// change to torrents is published to the others before it is answered (here, or on the node that ran it), and a
/// listing first takes what the others published (a call that reads preferences, or lists or names a category or
/// tag, what they stored), so a client that changed something on one node sees it on any.
final class ClusterRelay: APIRelay {
    let commands: CommandRelay
    let service: TorrentService
    let membership: NodeMembership
    let views: TorrentViewsSync
    let catalogue: CatalogueSync
    private let router = Mutex<APIRouter?>(nil)

    init(commands: CommandRelay, service: TorrentService, membership: NodeMembership, views: TorrentViewsSync,
         catalogue: CatalogueSync) {
        self.commands = commands
        self.service = service
        self.membership = membership
        self.views = views
        self.catalogue = catalogue
    }

    /// How long a listing waits for what the other nodes published before it answers from what this node holds.
    static let catchUpWait: Duration = .milliseconds(300)
    /// How long a call that names a category or tag waits for the catalogue's (longer: it would answer 409 for one
    /// made a moment ago on another node; no wait at all while the catalogue is out of reach).
    static let labelsWait: Duration = .seconds(2)

    /// The calls that list the cluster's torrents from the merged board.
    static let listings: Set<String> = ["torrents/info", "torrents/count", "sync/maindata"]

    /// The calls that read the preferences and state, or change them from what they are (a toggle, bans added to the
    /// list): they first take what another node set a moment ago.
    static func readsPreferences(_ scope: String, _ action: String) -> Bool {
        scope == "transfer" || (scope == "app" && ["preferences", "cookies", "defaultSavePath"].contains(action))
    }

    /// The `torrents/*` calls that read the categories and tags or name one.
    static let labelActions: Set<String> = [
        "categories", "tags", "createCategory", "editCategory", "removeCategories", "createTags", "deleteTags",
        "setCategory", "addTags", "removeTags", "setTags", "add",
    ]

    /// Whether a call reads the categories and tags or names one (an add only when it gives a category or tags): it
    /// first takes what another node made or removed a moment ago (the catalogue's notification may not have come
    /// yet), on the node a client asked and on the node a call is relayed to.
    static func readsLabels(_ scope: String, _ action: String, _ p: Parameters) -> Bool {
        scope == "torrents" && labelActions.contains(action) && (action != "add" || p["category"] != nil || p["tags"] != nil)
    }

    /// The router that runs the calls other nodes relay here.
    func attach(_ router: APIRouter) { self.router.withLock { $0 = router } }

    /// `torrents/*` actions that name no torrent of one node: listings, adds, categories and tags (the catalogue's).
    static let clusterWide: Set<String> = [
        "info", "add", "count", "categories", "createCategory", "editCategory", "removeCategories", "tags", "createTags",
        "deleteTags", "fetchMetadata", "parseMetadata", "saveMetadata", "downloadFile",
    ]

    static func relays(_ scope: String, _ action: String) -> Bool {
        (scope == "torrents" && !clusterWide.contains(action)) || (scope == "sync" && action == "torrentPeers")
    }

    func answer(scope: String, action: String, changes: Bool, _ p: Parameters,
                here: @escaping @Sendable (Parameters) async throws -> APIReply) async throws -> APIReply {
        if Self.listings.contains("\(scope)/\(action)") { await views.catchUpNow(within: Self.catchUpWait) }
        if Self.readsPreferences(scope, action) { await catalogue.preferencesNow(within: Self.catchUpWait) }
        if Self.readsLabels(scope, action, p) { await catalogue.labelsNow(within: Self.labelsWait) }
        guard changes, scope == "torrents" else { return try await route(scope: scope, action: action, p, here: here) }
        let reply = try await route(scope: scope, action: action, p, here: here)
        await views.publish()  // what it changed here, before the client hears it is done
        return reply
    }

    private func route(scope: String, action: String, _ p: Parameters,
                       here: @escaping @Sendable (Parameters) async throws -> APIReply) async throws -> APIReply {
        if scope == "torrents" && action == "add" { return try await add(p, here: here) }
        if scope == "torrentcreator" && action != "addTask" { return try await creatorTask(action, p, here: here) }
        guard Self.relays(scope, action) else { return try await here(p) }
        // `setSavePath` and `setDownloadPath` name their torrents `id` (hashes separated by |).
        let key = p["hash"] != nil ? "hash" : p["hashes"] == nil && p["id"] != nil ? "id" : "hashes"
        guard let value = p[key] else { return try await here(p) }
        if key == "hashes", value.lowercased() == "all" {  // this node's first, then every other node that is up
            let own = try await here(p)
            var replies: [APIReply] = []
            let nodes = await service.remoteNodes().sorted()
            await membership.freshenIfDown(nodes)  // one read for them all, when one is not up as last read
            for node in nodes where await membership.state(of: node) == .up {
                replies.append(try await relay(node, scope, action, p))
            }
            return try Self.combine(action, replies + [own])
        }
        let ids = value.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let groups = await service.owners(of: ids)
        guard groups.keys.contains(where: { $0 != nil }) else { return try await here(p) }
        var replies: [APIReply] = []
        for (node, nodeIDs) in groups.sorted(by: { ($0.key ?? "") < ($1.key ?? "") }) {
            guard let node else { continue }
            var q = p
            q.fields[key] = nodeIDs.joined(separator: "|")
            replies.append(try await relay(node, scope, action, q))
        }
        if let own = groups[nil] {
            var q = p
            q.fields[key] = own.joined(separator: "|")
            replies.append(try await here(q))
        }
        return try Self.combine(action, replies)
    }

    /// Actions that answer an object keyed by torrent: the nodes' answers are one object.
    static let answersByTorrent: Set<String> = ["downloadLimit", "uploadLimit"]

    /// One answer from each node the call reached, this node's last: one object for `answersByTorrent`, else the
    /// last answer (the nodes answer an action alike).
    static func combine(_ action: String, _ replies: [APIReply]) throws -> APIReply {
        guard answersByTorrent.contains(action), replies.count > 1 else { return replies.last ?? .empty }
        var merged: [String: JSONValue] = [:]
        for reply in replies {
            guard let body = jsonBody(reply) else { continue }
            if case .object(let answer) = try JSONDecoder().decode(JSONValue.self, from: body) {
                merged.merge(answer) { first, _ in first }
            }
        }
        return .json(try JSONEncoder().encode(JSONValue.object(merged)))
    }

    /// `torrents/add` on the node the client names (qbtd's `node`), else on the node with the most free space (of
    /// the nodes its category is pinned to, when it is).
    private func add(_ p: Parameters, here: @escaping @Sendable (Parameters) async throws -> APIReply) async throws -> APIReply {
        var p = p
        let named = p.fields.removeValue(forKey: "node").flatMap { $0.isEmpty ? nil : $0 }
        let target: String?
        if let named {
            guard named != membership.name else { return try await here(p) }
            guard await membership.stateNow(of: named) == .up else {
                throw HTTPRefusal(.badRequest, "no node named \(named) is up: qbtd/nodes lists the cluster's nodes and their states")
            }
            target = named
        } else {
            let category = p.fields["category"]?.trimmingCharacters(in: .whitespaces) ?? ""
            let pinned = category.isEmpty ? [] : await service.labels.categories.first { $0.name == category }?.nodes ?? []
            if !pinned.isEmpty, await !membership.anyUp(pinned) {
                try? await membership.refresh()  // one of them may have come since the last heartbeat
            }
            target = try await membership.placement(among: pinned)
        }
        guard let target else { return try await here(p) }
        return try await relay(target, "torrents", "add", p)
    }

    /// The torrent creator's tasks stay on the node that made them (their files are there): a call naming a task this
    /// node does not have goes to the other nodes that are up until one has it, and `status` of every task lists
    /// every node's.
    private func creatorTask(_ action: String, _ p: Parameters,
                             here: @escaping @Sendable (Parameters) async throws -> APIReply) async throws -> APIReply {
        await membership.freshenIfDown(await membership.nodes(in: .lapsed).map(\.name))  // a node back a moment ago
        let others = await membership.upNodes().map(\.name).filter { $0 != membership.name }.sorted()
        if action == "status", (p["taskID"] ?? "").isEmpty {
            var tasks = try Self.array(try await here(p))
            for node in others {
                do { tasks += try Self.array(try await relay(node, "torrentcreator", action, p)) } catch {}  // its tasks unseen
            }
            return .json(try JSONEncoder().encode(JSONValue.array(tasks)))
        }
        do {
            return try await here(p)
        } catch let missing as any HTTPAnswer where missing.status == .notFound {
            var unanswered: ClusterError?
            for node in others {
                do { return try await relay(node, "torrentcreator", action, p) } catch let error as ClusterError {
                    unanswered = unanswered ?? error  // the task may be on that node, or on the next
                } catch let answer as any HTTPAnswer where answer.status == .notFound {}
            }
            throw unanswered ?? missing  // not "no such task" when a node that may have it did not answer
        }
    }

    private static func array(_ reply: APIReply) throws -> [JSONValue] {
        guard let body = jsonBody(reply), case .array(let items) = try JSONDecoder().decode(JSONValue.self, from: body) else {
            return []
        }
        return items
    }

    /// A JSON answer's body, however this node's router or another node's made it (nil: not JSON).
    static func jsonBody(_ reply: APIReply) -> Data? {
        switch reply {
        case .json(let data): return data
        case .jsonBytes(let bytes): return Data(bytes)
        case .jsonParts(let parts): return Data(parts.joined())
        default: return nil
        }
    }

    private func relay(_ node: String, _ scope: String, _ action: String, _ p: Parameters) async throws -> APIReply {
        if let state = await membership.stateNow(of: node), state != .up {
            throw ClusterError.nodeDown(node, state: state.rawValue)
        }
        let request = try JSONEncoder().encode(RelayedCall(scope: scope, action: action, p))
        let answer = try await commands.call(node, request)
        return try JSONDecoder().decode(RelayedReply.self, from: answer).reply()
    }

    /// Runs a call another node relayed here, and encodes its answer.
    @Sendable func serve(_ request: Data) async -> Data {
        let reply: RelayedReply
        if let call = try? JSONDecoder().decode(RelayedCall.self, from: request), let router = router.withLock({ $0 }) {
            let p = call.parameters
            if Self.readsLabels(call.scope, call.action, p) { await catalogue.labelsNow(within: Self.labelsWait) }
            do {
                reply = try RelayedReply(try await router.perform(scope: call.scope, action: call.action, p))
                await views.publish()  // what it changed, before the caller's node hears it is done
            } catch let answer as any HTTPAnswer {
                reply = .failure(status: answer.status.code, message: answer.message)
            } catch {
                reply = .failure(status: 500, message: "Internal Server Error")
            }
        } else {
            reply = .failure(status: 400, message: "a relayed call this node cannot read (do the nodes run the same qbtd?)")
        }
        return (try? JSONEncoder().encode(reply)) ?? Data()
    }
}
