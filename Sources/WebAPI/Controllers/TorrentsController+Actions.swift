import Foundation
import HTTPKit
import QBTCore
import Store
import TorrentEngine

/// The rest of `torrents/*`: trackers and peers, per-torrent settings, and organizing (paths, names,
/// categories, tags).
extension TorrentsController {
    /// `hash`: one torrent that must exist (404 otherwise).
    func existing(_ p: Parameters, _ name: String = "hash") async throws -> TorrentID {
        let id = try p.required(name).lowercased()
        guard await service.exists(id) else { throw QBitError.notFound() }
        return id
    }

    var swarmActions: [String: APIAction] {
        [
            "trackers": .get { p, _ in try await trackers(p) },
            "addTrackers": .post { p, _ in
                let entries = Self.trackerEntries(try p.required("urls"))
                // 5.2 takes a `|` list or `all` and skips unknown torrents; before, one torrent that must exist.
                let ids = identity.trackerEditsTakeLists ? try await applied(p, "hash") : [try await existing(p)]
                for id in ids { try await service.sources.addTrackers(id, entries) }
                return .done
            },
            "editTracker": .post { p, _ in
                let id = try await existing(p)
                // 2.13 renamed `origUrl` to `url`; either is taken.
                guard let old = p["origUrl"] ?? p["url"] else { throw QBitError.badParams() }
                // 5.2: `newUrl` and `tier` are each optional, but one of them is needed.
                let new = identity.trackerEditsTakeLists ? p["newUrl"] : try p.required("newUrl")
                var tier: Int?
                if identity.trackerEditsTakeLists, let raw = p["tier"] {
                    guard let number = Int(raw) else { throw QBitError.badParams("tier must be an integer") }
                    guard (0...255).contains(number) else { throw QBitError.badParams("tier must be between 0 and 255") }
                    tier = number
                }
                if new == nil && tier == nil { throw QBitError.badParams("Must specify at least one of [newUrl, tier]") }
                // qBittorrent takes any URL QUrl reads (`127.1.0.2` too); what no URL reader takes is a 400.
                if let new, new.isEmpty || URL(string: new.replacingOccurrences(of: " ", with: "%20")) == nil {
                    throw QBitError.badParams("New tracker URL is invalid")
                }
                try await service.sources.editTracker(id, from: old, to: new == old ? nil : new, tier: tier)
                return .done
            },
            "removeTrackers": .post { p, _ in
                let raw = try p.required("hash")
                let urls = try p.required("urls").split(separator: "|").map { $0.removingPercentEncoding ?? String($0) }
                let ids: [TorrentID]
                if raw == "*" { ids = await service.ids }
                // 5.2 takes a `|` list or `all` and skips unknown torrents.
                else if identity.trackerEditsTakeLists { ids = try await applied(p, "hash") }
                else { ids = [try await existing(p)] }
                for id in ids { try await service.sources.removeTrackers(id, urls: urls) }
                return .done
            },
            "webseeds": .get { p, _ in
                .json(.array(try await service.sources.webSeeds(try await existing(p)).map { .object(["url": .string($0)]) }))
            },
            "addWebSeeds": .post { p, _ in
                let id = try await existing(p)
                let urls = try webSeedURLs(p)
                try await service.sources.addWebSeeds(id, urls: urls)
                return .empty
            },
            "removeWebSeeds": .post { p, _ in
                let id = try await existing(p)
                try await service.sources.removeWebSeeds(id, urls: try webSeedURLs(p))
                return .empty
            },
            "editWebSeed": .post { p, _ in
                let id = try await existing(p)
                let old = try p.required("origUrl"), new = try p.required("newUrl")
                guard Self.validURL(new, schemes: ["http", "https", "ftp"]) else { throw QBitError.badParams("Web seed URL is invalid: \(new)") }
                try await service.sources.editWebSeed(id, from: old, to: new)
                return .empty
            },
            "SSLParameters": .get { p, _ in
                let ssl = try await service.swarm.sslParameters(try await existing(p))
                return .json(.object(["ssl_certificate": .string(ssl?.certificate ?? ""),
                                      "ssl_private_key": .string(ssl?.privateKey ?? ""),
                                      "ssl_dh_params": .string(ssl?.dhParams ?? "")]))
            },
            "setSSLParameters": .post { p, _ in
                let hash = try p.required("hash").lowercased()
                let ssl = SSLParameters(certificate: try p.required("ssl_certificate"),
                                        privateKey: try p.required("ssl_private_key"), dhParams: try p.required("ssl_dh_params"))
                guard await service.exists(hash) else { throw QBitError.notFound() }
                // qBittorrent's BadData: 415 with an empty message.
                guard try await service.swarm.setSSLParameters(hash, ssl) else { throw QBitError.unsupportedMediaType("") }
                return .empty
            },
            "pieceStates": .get { p, _ in
                .json(.array(try await service.swarm.pieceStates(try await existing(p)).map { .int(Int64($0.rawValue)) }))
            },
            // 5.2: how many connected peers have each piece.
            "pieceAvailability": .get { p, _ in
                .json(.array(try await service.swarm.pieceAvailability(try await existing(p)).map { .int(Int64($0)) }))
            }.since(.v5_2),
            // 5.2: the comment qBittorrent shows for the torrent (trimmed; the .torrent is not rewritten).
            "setComment": .post { p, _ in
                let ids = try await hashes(p)
                let comment = try p.required("comment").trimmingCharacters(in: .whitespacesAndNewlines)
                try await service.setComment(ids, comment)
                return .done
            }.since(.v5_2),
            // 5.3: a completed file's bytes (one Range at most), by index or by its path in the torrent.
            "downloadFile": .get { p, _ in try await downloadFile(p) }.since(.v5_3),
            "pieceHashes": .get { p, _ in
                .json(.array(try await service.swarm.pieceHashes(try await existing(p)).map { .string($0) }))
            },
            "export": .get { p, _ in
                let id = try await existing(p)
                let bytes = try await service.sources.export(id)
                return identity.profile == .v4_6
                    ? .binary(bytes, contentType: "text/plain; charset=UTF-8", filename: nil)
                    : .binary(bytes, contentType: "application/x-bittorrent", filename: "\(id).torrent")
            },
        ]
    }

    /// `parseTrackerEntries`: one URL per line, a blank line starts the next tier (counted from 0).
    static func trackerEntries(_ text: String) -> [(url: String, tier: Int)] {
        var tier = 0
        var out: [(url: String, tier: Int)] = []
        // ("\r\n" is one Character in Swift: split on it too, as Qt's split on '\n' then trim does)
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let url = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if url.isEmpty { tier += 1 } else { out.append((url, tier)) }
        }
        return out
    }

    func webSeedURLs(_ p: Parameters) throws -> [String] {
        let urls = try p.required("urls").split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        for url in urls where !Self.validURL(url, schemes: ["http", "https", "ftp"]) {
            throw QBitError.badParams("Web seed URL is invalid: \(url)")
        }
        return urls
    }

    static func validURL(_ text: String, schemes: Set<String>) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), url.host?.isEmpty == false else { return false }
        return schemes.contains(scheme)
    }

    /// Three pseudo-trackers (DHT, PeX, LSD) first, as qBittorrent lists them, then the real ones.
    func trackers(_ p: Parameters) async throws -> APIReply {
        let id = try await existing(p)
        let list = try await service.sources.trackers(id)
        let view = await service.freshView(id)
        let peers = (try? await service.swarm.peers(id)) ?? []
        let engine = settings.engineSettings()
        let isPrivate = view?.status.isPrivate ?? false
        func pseudo(_ name: String, on: Bool, letter: String) -> JSONValue {
            let count = Int64(peers.filter { $0.flags.split(separator: " ").contains(Substring(letter)) }.count)
            return .object([
                "url": .string("** [\(name)] **"), "status": .int(isPrivate || !on ? 0 : 2), "tier": .int(-1),
                "msg": .string(isPrivate ? "This torrent is private" : ""), "num_peers": .int(count),
                "num_seeds": .int(0), "num_leeches": .int(0), "num_downloaded": .int(0),
            ])
        }
        let out: [JSONValue] = [
            pseudo("DHT", on: engine.dht, letter: "H"), pseudo("PeX", on: engine.pex, letter: "X"),
            pseudo("LSD", on: engine.lsd, letter: "L"),
        ]
        return .json(.array(out + list.map { Self.trackerJSON($0, identity) }))
    }

    /// A real tracker as `torrents/trackers` (and `torrents/info?includeTrackers=true`) write it.
    static func trackerJSON(_ t: TrackerEntry, _ identity: Identity) -> JSONValue {
        // Before 5.2 the WebAPI reports a tracker error or an unreachable tracker as "not working" (4): 4.x has no
        // codes for them, and 5.1 folds its own (checked against the real 4.5.2 and 5.1.0; 5.2 reports 5 and 6).
        let status = identity.profile < .v5_2 && t.status.rawValue > TrackerEntry.Status.notWorking.rawValue
            ? TrackerEntry.Status.notWorking.rawValue : t.status.rawValue
        var o: [String: JSONValue] = [
            "url": .string(t.url), "status": .int(Int64(status)), "tier": .int(Int64(t.tier)),
            "msg": .string(t.message), "num_peers": .int(Int64(t.peers)), "num_seeds": .int(Int64(t.seeds)),
            "num_leeches": .int(Int64(t.leeches)), "num_downloaded": .int(Int64(t.downloaded)),
        ]
        if identity.profile >= .v5_2 {  // 5.2: announce times, `updating`, and the endpoints
            o["updating"] = .bool(t.updating)
            o["next_announce"] = .int(t.nextAnnounce)
            o["min_announce"] = .int(t.minAnnounce)
            o["endpoints"] = .array(t.endpoints.map { e in
                .object([
                    "name": .string(e.name), "bt_version": .int(Int64(e.btVersion)), "updating": .bool(e.updating),
                    "status": .int(Int64(e.status.rawValue)), "msg": .string(e.message), "num_peers": .int(Int64(e.peers)),
                    "num_seeds": .int(Int64(e.seeds)), "num_leeches": .int(Int64(e.leeches)),
                    "num_downloaded": .int(Int64(e.downloaded)), "next_announce": .int(e.nextAnnounce),
                    "min_announce": .int(e.minAnnounce),
                ])
            })
        }
        return .object(o)
    }

    // MARK: per-torrent settings

    var settingActions: [String: APIAction] {
        [
            // qBittorrent's order: parameters, priority, torrent, metadata, then each file id in turn.
            "filePrio": .post { p, _ in
                try p.require("hash", "id", "priority")
                let hash = try p.required("hash").lowercased(), ids = try p.required("id")
                guard let priority = Int(try p.required("priority")) else { throw QBitError.badParams("Priority must be an integer") }
                guard [0, 1, 6, 7].contains(priority) else { throw QBitError.badParams("Priority is not valid") }
                guard await service.exists(hash) else { throw QBitError.notFound() }
                let count = try await service.files(hash).count
                guard count > 0 else { throw QBitError.conflict("Torrent's metadata has not yet downloaded") }
                var files: [Int] = []
                for item in ids.split(separator: "|", omittingEmptySubsequences: false) {
                    guard let index = Int(item) else { throw QBitError.badParams("File IDs must be integers") }
                    guard (0..<count).contains(index) else { throw QBitError.conflict("File ID is not valid") }
                    files.append(index)
                }
                try await service.setFilePriority(hash, files: files, priority: priority)
                return .empty
            },
            "downloadLimit": .get { p, _ in try await limits(p) { $0.downloadLimit } },
            "uploadLimit": .get { p, _ in try await limits(p) { $0.uploadLimit } },
            "setDownloadLimit": .post { p, _ in
                let ids = try await hashes(p)
                // qBittorrent reads the limit with toLongLong: anything else is 0, i.e. unlimited.
                let limit = Int(try p.required("limit").trimmingCharacters(in: .whitespaces)) ?? 0
                try await service.setLimits(ids, upload: nil, download: limit)
                return .empty
            },
            "setUploadLimit": .post { p, _ in
                let ids = try await hashes(p)
                // qBittorrent reads the limit with toLongLong: anything else is 0, i.e. unlimited.
                let limit = Int(try p.required("limit").trimmingCharacters(in: .whitespaces)) ?? 0
                try await service.setLimits(ids, upload: limit, download: nil)
                return .empty
            },
            "setShareLimits": .post { p, _ in
                // 5.2 requires every limit and the action, 5.3 the mode too, and names all that are missing.
                if identity.profile >= .v5_3 {
                    try p.require("hashes", "ratioLimit", "seedingTimeLimit", "inactiveSeedingTimeLimit", "shareLimitAction", "shareLimitsMode")
                } else if identity.profile >= .v5_2 {
                    try p.require("hashes", "ratioLimit", "seedingTimeLimit", "inactiveSeedingTimeLimit", "shareLimitAction")
                }
                let ids = try await hashes(p)
                guard let ratio = p.double("ratioLimit"), let seeding = p.int("seedingTimeLimit") else { throw QBitError.badParams() }
                // 4.6 made `inactiveSeedingTimeLimit` required; 4.5 clients do not send it, so it defaults to global.
                try await service.setShareLimits(ids, ratio: ratio, seedingTime: seeding,
                                             inactiveSeedingTime: p.int("inactiveSeedingTimeLimit") ?? -2,
                                             action: p["shareLimitAction"], mode: p["shareLimitsMode"])
                return .empty
            },
            "toggleSequentialDownload": .post { p, _ in try await service.toggleSequential(try await hashes(p)); return .empty },
            "toggleFirstLastPiecePrio": .post { p, _ in
                try await service.toggleFirstLastPiecePrio(try await hashes(p))
                return .empty
            },
            "setSuperSeeding": .post { p, _ in
                let ids = try await hashes(p)
                _ = try p.required("value")
                try await service.setSuperSeeding(ids, p.bool("value") ?? false)
                return .empty
            },
            "setForceStart": .post { p, _ in
                let ids = try await hashes(p)
                _ = try p.required("value")
                try await service.setForceStart(ids, p.bool("value") ?? false)
                return .empty
            },
            "setAutoManagement": .post { p, _ in
                let ids = try await hashes(p)
                _ = try p.required("enable")
                try await service.setAutoManagement(ids, p.bool("enable") ?? false)
                return .empty
            },
        ]
    }

    func limits(_ p: Parameters, _ pick: @escaping @Sendable (TorrentRecord) -> Int) async throws -> APIReply {
        var out: [String: JSONValue] = [:]
        for id in try await hashes(p) {
            if let view = await service.freshView(id) { out[id] = .int(Int64(pick(view.record))) }
        }
        return .json(.object(out))
    }

    // MARK: organizing

    var organizeActions: [String: APIAction] {
        [
            "setLocation": .post { p, _ in
                let ids = try await hashes(p)
                let location = try p.required("location").trimmingCharacters(in: .whitespaces)
                guard !location.isEmpty else { throw QBitError.badParams("Save path cannot be empty") }
                try await service.setLocation(ids, to: location)
                return .empty
            },
            "setSavePath": .post { p, _ in
                let ids = try p.required("id").split(separator: "|").map { $0.lowercased() }
                let path = try p.required("path").trimmingCharacters(in: .whitespaces)
                guard !path.isEmpty else { throw QBitError.badParams("Save path cannot be empty") }
                try await service.setSavePath(ids, to: path)
                return .empty
            },
            "setDownloadPath": .post { p, _ in
                let ids = try p.required("id").split(separator: "|").map { $0.lowercased() }
                try await service.setDownloadPath(ids, to: try p.required("path").trimmingCharacters(in: .whitespaces))
                return .empty
            },
            "rename": .post { p, _ in
                let id = try await existing(p)
                try await service.rename(id, to: try p.required("name"))
                return .empty
            },
            "renameFile": .post { p, _ in
                let id = try await existing(p)
                try await service.renameFile(id, from: try p.required("oldPath"), to: try p.required("newPath"))
                return .empty
            },
            "renameFolder": .post { p, _ in
                let id = try await existing(p)
                try await service.renameFolder(id, from: try p.required("oldPath"), to: try p.required("newPath"))
                return .empty
            },
            "setCategory": .post { p, _ in
                let ids = try await hashes(p)
                try await service.labels.setCategory(ids, try p.required("category").trimmingCharacters(in: .whitespaces))
                return .empty
            },
            "categories": .get { _, _ in
                var out: [String: JSONValue] = [:]
                for c in await service.labels.categories { out[c.name] = Self.json(c, identity) }
                return .json(.object(out))
            },
            "createCategory": .post { p, _ in
                try await service.labels.createCategory(try category(p))
                return .empty
            },
            "editCategory": .post { p, _ in
                // 5.3 edits only what is given (savePath included); 5.2 requires savePath.
                if identity.profile >= .v5_3 { try p.require("category") } else { try p.require("category", "savePath") }
                let name = try p.required("category").trimmingCharacters(in: .whitespaces)
                let known = await service.labels.categories.first { $0.name == name }
                let edited = try category(p, over: identity.profile >= .v5_3 ? known : nil)
                // 5.2: an unknown category is a 404, an edit that changes nothing a plain success.
                if identity.profile >= .v5_2 {
                    guard let known else { throw QBitError.notFound("Category does not exist") }
                    if known == edited { return .empty }
                }
                try await service.labels.editCategory(edited)
                return .empty
            },
            "removeCategories": .post { p, _ in
                let names = try p.required("categories").split(whereSeparator: \.isNewline)
                    .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                // 5.2 moves their torrents to the parent category.
                try await service.labels.removeCategories(names, toParent: identity.profile >= .v5_2)
                return .empty
            },
            "tags": .get { _, _ in .json(.array(await service.labels.tags.map { .string($0) })) },
            "createTags": .post { p, _ in try await service.labels.createTags(try tagList(p)); return .empty },
            "deleteTags": .post { p, _ in try await service.labels.deleteTags(try tagList(p)); return .empty },
            "addTags": .post { p, _ in
                try await service.labels.addTags(try await hashes(p), try tagList(p))
                return .empty
            },
            "setTags": .post { p, _ in
                try await service.labels.setTags(try await hashes(p), try tagList(p))
                return .done
            },
            "removeTags": .post { p, _ in
                let ids = try await hashes(p)
                // No (or an empty) `tags` removes them all.
                let tags = p.list("tags", separator: ",")?.map { $0.trimmingCharacters(in: .whitespaces) }
                try await service.labels.removeTags(ids, tags?.isEmpty == false ? tags : nil)
                return .empty
            },
        ]
    }

    func tagList(_ p: Parameters) throws -> [String] {
        try p.required("tags").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The category a create or edit asks for; `current` (5.3's edits) supplies what the request leaves out.
    func category(_ p: Parameters, over current: Category? = nil) throws -> Category {
        let name = try p.required("category").trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { throw QBitError.badParams("Category cannot be empty") }
        var category = current ?? Category(name: name, savePath: "")
        if current == nil || p["savePath"] != nil {
            category.savePath = (p["savePath"] ?? "").trimmingCharacters(in: .whitespaces)
        }
        // Only `true` or `false` (any case) set the option; anything else leaves it following the global setting.
        if let enabled = p.bool("downloadPathEnabled") {
            category.downloadPath = DownloadPathOption(
                enabled: enabled, path: (p["downloadPath"] ?? "").trimmingCharacters(in: .whitespaces))
        }
        if identity.profile >= .v5_3 { category.shareLimits = try Self.shareLimits(p, over: category.shareLimits) }
        // qbtd's own, a cluster's only: the nodes the category's new torrents go to ("": any).
        if identity.node != nil, let raw = p["nodes"] {
            let names = raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard names.allSatisfy(Identity.isNodeName) else {
                // qbtd's own parameter: its own clear answer (qBittorrent's 400s say only "Bad Request").
                throw HTTPRefusal(.badRequest, "nodes is a comma-separated list of node names (letters, digits, -, _ and .): qbtd/nodes lists them")
            }
            category.nodes = names
        }
        return category
    }

    /// 5.3's category share limits: -2 (as the parent, then global), -1 (none) or a limit; the two names as
    /// `setShareLimits` takes them. Anything else is refused, naming the parameter.
    static func shareLimits(_ p: Parameters, over current: CategoryShareLimits) throws -> CategoryShareLimits {
        func invalid(_ name: String) -> QBitError { QBitError.badParams("'\(name)' parameter has invalid value") }
        var limits = current
        if let raw = p["ratioLimit"] {
            guard let ratio = Double(raw.trimmingCharacters(in: .whitespaces)), ratio.isFinite, ratio >= 0 || ratio == -1 || ratio == -2
            else { throw invalid("ratioLimit") }
            limits.ratio = ratio
        }
        for (name, path) in [("seedingTimeLimit", \CategoryShareLimits.seedingTime),
                             ("inactiveSeedingTimeLimit", \CategoryShareLimits.inactiveSeedingTime)] {
            guard let raw = p[name] else { continue }
            guard let minutes = Int(raw.trimmingCharacters(in: .whitespaces)), minutes >= -2 else { throw invalid(name) }
            limits[keyPath: path] = minutes
        }
        if let action = p["shareLimitAction"] {
            guard ["Default", "Stop", "Remove", "RemoveWithContent", "EnableSuperSeeding"].contains(action) else {
                throw invalid("shareLimitAction")
            }
            limits.action = action
        }
        if let mode = p["shareLimitsMode"] {
            guard ["Default", "MatchAny", "MatchAll"].contains(mode) else { throw invalid("shareLimitsMode") }
            limits.mode = mode
        }
        return limits
    }

    /// `{name, savePath, download_path?}`: before 5.2 the key is absent when the category follows the global
    /// setting, `false` when it has none, else its path ("" for a folder named after it). 5.2 always writes
    /// `download_path` (null: the global setting) and the category's share limits (which only 5.3's WebAPI can set),
    /// 5.3 its share limits mode.
    static func json(_ c: Category, _ identity: Identity) -> JSONValue {
        var o: [String: JSONValue] = ["name": .string(c.name), "savePath": .string(c.savePath)]
        if let download = c.downloadPath { o["download_path"] = download.enabled ? .string(download.path) : .bool(false) }
        if identity.profile >= .v5_2 {
            if o["download_path"] == nil { o["download_path"] = .null }
            o["ratio_limit"] = .double(c.shareLimits.ratio)
            o["seeding_time_limit"] = .int(Int64(c.shareLimits.seedingTime))
            o["inactive_seeding_time_limit"] = .int(Int64(c.shareLimits.inactiveSeedingTime))
            o["share_limit_action"] = .string(c.shareLimits.action)
        }
        if identity.profile >= .v5_3 { o["share_limits_mode"] = .string(c.shareLimits.mode) }
        if identity.node != nil { o["nodes"] = .array(c.nodes.map { .string($0) }) }  // a cluster's only
        return .object(o)
    }

    /// As 5.3.0 answers: an integer is an index, anything else a path as `torrents/files` names it.
    func downloadFile(_ p: Parameters) async throws -> APIReply {
        try p.require("hash", "file")
        let id = (p["hash"] ?? "").lowercased(), raw = p["file"] ?? ""
        guard let view = await service.view(id) else { throw QBitError.notFound("Torrent not found") }
        let files = try await service.files(id)
        let index: Int
        if let number = Int(raw) {
            guard number >= 0 else { throw QBitError.conflict("\"\(raw)\" is not a valid file index") }
            guard number < files.count else { throw QBitError.conflict("File index \(number) is out of bounds") }
            index = number
        } else {
            guard let found = files.firstIndex(where: { $0.path == raw }) else {
                throw QBitError.conflict("\"\(raw)\" is not a valid file path")
            }
            index = found
        }
        let file = files[index]
        guard file.downloaded >= file.size else { throw QBitError.conflict("File not fully downloaded") }
        return .file(FileAnswer(path: view.status.savePath + "/" + file.diskPath, size: file.size))
    }
}
