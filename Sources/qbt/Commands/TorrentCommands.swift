import ArgumentParser
import Foundation
import QBTClient

struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List torrents.",
        discussion: "Filters: all, downloading, seeding, completed, stopped (paused), running (resumed), active, inactive, stalled, stalled_uploading, stalled_downloading, checking, moving, errored.")

    @OptionGroup var global: GlobalOptions
    @Option(name: .shortAndLong, help: "Only torrents in this state group.") var filter: String?
    @Option(name: .shortAndLong, help: "Only this category (\"\" for none).") var category: String?
    @Option(name: .shortAndLong, help: "Only torrents with this tag.") var tag: String?
    @Option(name: .shortAndLong, help: "Sort by a torrents/info field: name, size, progress, dlspeed, added_on, ratio…") var sort: String?
    @Flag(name: .shortAndLong, help: "Reverse the order.") var reverse = false
    @Option(help: "At most this many.") var limit: Int?
    @Argument(help: ArgumentHelp("Only these hashes (or unique prefixes).", valueName: "hash")) var hashes: [String] = []

    func run() async throws {
        let client = try await global.client()
        var filter = self.filter
        if let f = filter, !(try await client.speaksStopStart()) {  // 4.x names
            filter = ["stopped": "paused", "running": "resumed"][f] ?? f
        }
        // Hashes filter here, by prefix, so an unknown one lists nothing rather than failing.
        let prefixes = hashes.map { $0.lowercased() }
        func wanted(_ hash: String) -> Bool { prefixes.isEmpty || prefixes.contains { hash.hasPrefix($0) } }
        let query = TorrentQuery(filter: filter, category: category, tag: tag, sort: sort, reverse: reverse, limit: limit)
        if global.json {
            let rows = try await client.torrentsJSON(query) as? [[String: Any]] ?? []
            return Output.printJSON(rows.filter { wanted($0["hash"] as? String ?? "") })
        }
        let torrents = try await client.torrents(query).filter { wanted($0.hash) }
        if torrents.isEmpty { return Output.note("No torrents.") }
        print(Output.table(
            ["HASH", "NAME", "SIZE", "DONE", "STATE", "DOWN", "UP", "ETA", "CATEGORY"],
            torrents.map {
                [String($0.hash.prefix(8)), $0.name, Output.bytes($0.size), Output.percent($0.progress), $0.state,
                 Output.rate($0.dlspeed), Output.rate($0.upspeed), $0.isComplete ? "-" : Output.duration($0.eta), $0.category]
            }, flex: 1, rightAligned: [2, 3, 5, 6, 7]))
    }
}

struct Add: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add torrents from .torrent files, magnet links, URLs or info hashes.",
        discussion: "With --wait, shows a progress bar until every added torrent has finished downloading.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("Files, magnet: links, http(s) URLs or info hashes.", valueName: "source")) var sources: [String]
    @Option(help: "Where to save.") var savePath: String?
    @Option(help: "Where to keep incomplete data.") var downloadPath: String?
    @Option(name: .shortAndLong, help: "Category.") var category: String?
    @Option(name: .shortAndLong, help: "Tags, comma-separated.") var tags: String?
    @Option(help: "Rename the torrent.") var rename: String?
    @Option(help: "Cookie to send when fetching URLs.") var cookie: String?
    @Option(help: "Original, Subfolder or NoSubfolder.") var contentLayout: String?
    @Option(help: "None, MetadataReceived or FilesChecked.") var stopCondition: String?
    @Flag(help: "Add stopped (paused).") var stopped = false
    @Flag(help: "Skip the hash check.") var skipChecking = false
    @Flag(help: "Download in order.") var sequential = false
    @Flag(help: "First and last pieces first.") var firstLastPiecePrio = false
    @Flag(help: "Automatic torrent management.") var autoTmm = false
    @Flag(help: "Put at the top of the queue.") var addToTop = false
    @Option(help: "Download limit, e.g. 2M.") var downloadLimit: String?
    @Option(help: "Upload limit, e.g. 500K.") var uploadLimit: String?
    @Option(help: "Share ratio limit.") var ratioLimit: Double?
    @Option(help: "Seeding time limit in minutes.") var seedingTimeLimit: Int?
    @Option(help: "Inactive seeding time limit in minutes.") var inactiveSeedingTimeLimit: Int?
    @Flag(help: "Wait until the torrents have downloaded, with a progress bar.") var wait = false
    @Option(help: "Give up waiting after this many seconds.") var timeout: Int = 86400

    func validate() throws {
        if wait && stopped { throw ValidationError("--wait with --stopped would wait for ever: the torrents do not start") }
    }

    /// A bare info hash as the magnet qBittorrent would make of it: 40 hex or 32 base32 (v1), 64 hex (v2).
    static func magnet(forBareHash hash: String) -> String? {
        let magnet = hash.count == 64 ? "magnet:?xt=urn:btmh:1220" + hash : "magnet:?xt=urn:btih:" + hash
        return (hash.count == 40 || hash.count == 32 || hash.count == 64) && InfoHash.isValidMagnet(magnet) ? magnet : nil
    }

    func run() async throws {
        var request = AddRequest()
        var expected: [String] = []
        for source in sources {
            let lower = source.lowercased()
            if lower.hasPrefix("magnet:") {
                guard InfoHash.isValidMagnet(source) else {
                    throw QBTClientError.invalidInput("not a valid magnet link (it needs xt=urn:btih:HASH): \(source)")
                }
                request.urls.append(source)
                InfoHash.ofMagnet(source).map { expected.append($0) }
            } else if lower.hasPrefix("http://") || lower.hasPrefix("https://") || lower.hasPrefix("bc://") {
                request.urls.append(source)
            } else if !FileManager.default.fileExists(atPath: source), let magnet = Self.magnet(forBareHash: source) {
                request.urls.append(magnet)  // sent as a magnet: servers differ in the bare forms they take
                InfoHash.ofMagnet(magnet).map { expected.append($0) }
            } else {
                guard let data = FileManager.default.contents(atPath: source) else {
                    throw QBTClientError.invalidInput("no such file: \(source) (give a .torrent file, a magnet link or a URL)")
                }
                guard let hash = InfoHash.ofMetainfo(data) else { throw QBTClientError.invalidInput("not a .torrent file: \(source)") }
                request.files.append((URL(fileURLWithPath: source).lastPathComponent, data))
                expected.append(hash)
            }
        }
        request.savePath = savePath; request.downloadPath = downloadPath; request.category = category
        request.tags = tags; request.rename = rename; request.cookie = cookie; request.contentLayout = contentLayout
        request.stopCondition = stopCondition
        if downloadPath != nil { request.useDownloadPath = true }
        if stopped { request.stopped = true }
        if skipChecking { request.skipChecking = true }
        if sequential { request.sequential = true }
        if firstLastPiecePrio { request.firstLastPiecePrio = true }
        if autoTmm { request.autoTMM = true }
        if addToTop { request.addToTop = true }
        request.dlLimit = try downloadLimit.map(parseRate)
        request.upLimit = try uploadLimit.map(parseRate)
        request.ratioLimit = ratioLimit; request.seedingTimeLimit = seedingTimeLimit
        request.inactiveSeedingTimeLimit = inactiveSeedingTimeLimit

        if wait && expected.count < sources.count {
            throw QBTClientError.invalidInput("--wait needs torrents whose hash is known before adding (files, magnets, hashes), not URLs")
        }
        let client = try await global.client()
        try await client.add(request)
        if wait { try await waitForDownload(client, expected) }
        if global.json {
            Output.printJSON(["added": sources.count, "hashes": expected])
        } else if !wait {
            print("Added \(Output.torrents(sources))\(expected.isEmpty ? "" : ": " + expected.map { String($0.prefix(8)) }.joined(separator: " ")).")
        }
    }

    func waitForDownload(_ client: QBTClient, _ hashes: [String]) async throws {
        var bar = ProgressBar("downloading")
        let deadline = ContinuousClock.now + .seconds(timeout)
        let listedBy = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let torrents = try await client.torrents(TorrentQuery(hashes: hashes))
            if torrents.isEmpty, ContinuousClock.now > listedBy {
                bar.finish()
                throw QBTClientError.conflict("the server accepted the torrent but does not list it: see `qbt log`")
            }
            let size = torrents.reduce(Int64(0)) { $0 + max($1.size, 0) }
            let left = torrents.reduce(Int64(0)) { $0 + max($1.amountLeft, 0) }
            let fraction = torrents.count == hashes.count && size > 0 ? Double(size - left) / Double(size) : 0
            let speed = torrents.reduce(Int64(0)) { $0 + $1.dlspeed }
            bar.update(fraction, detail: "\(Output.bytes(size - left)) of \(Output.bytes(size)) at \(Output.rate(speed))")
            if let bad = torrents.first(where: \.isErrored) {
                bar.finish()
                throw QBTClientError.conflict("\(bad.name) stopped with state \(bad.state): see `qbt info \(bad.hash.prefix(8))`")
            }
            if torrents.count == hashes.count, torrents.allSatisfy(\.isComplete) {
                bar.finish()
                if !global.json { print("Downloaded \(torrents.map(\.name).joined(separator: ", ")).") }
                return
            }
            try await Task.sleep(nanoseconds: 500_000_000)
        }
        bar.finish()
        throw QBTClientError.conflict("still downloading after \(timeout) s: see `qbt list`")
    }
}

struct Info: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show a torrent's details.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("A hash or unique prefix.", valueName: "hash")) var hash: String

    func run() async throws {
        let client = try await global.client()
        let torrent = try await client.resolveTorrents([hash])[0]
        let hash = torrent.hash
        var properties = try await client.properties(hash)
        if global.json {
            properties["hash"] = hash
            properties["name"] = torrent.name
            properties["state"] = torrent.state
            properties["category"] = torrent.category
            properties["tags"] = torrent.tags
            properties["progress"] = torrent.progress
            return Output.printJSON(properties)
        }
        func int(_ key: String) -> Int64 { (properties[key] as? NSNumber)?.int64Value ?? -1 }
        let rows: [(String, String)] = [
            ("Name", torrent.name), ("Hash", hash), ("State", torrent.state),
            ("Progress", "\(Output.percent(torrent.progress)) of \(Output.bytes(torrent.size))"),
            ("Save path", properties["save_path"] as? String ?? torrent.savePath),
            ("Category", torrent.category.isEmpty ? "-" : torrent.category), ("Tags", torrent.tags.isEmpty ? "-" : torrent.tags),
            ("Downloaded", "\(Output.bytes(int("total_downloaded"))) at \(Output.rate(torrent.dlspeed))"),
            ("Uploaded", "\(Output.bytes(int("total_uploaded"))) at \(Output.rate(torrent.upspeed)), ratio \(String(format: "%.2f", torrent.ratio))"),
            ("Peers", "\(int("seeds")) seeds, \(int("peers")) peers"),
            ("Pieces", "\(int("pieces_have")) of \(int("pieces_num")) × \(Output.bytes(int("piece_size")))"),
            ("Limits", "down \(Output.limit(torrent.dlLimit)), up \(Output.limit(torrent.upLimit))"),
            ("Added", Output.date(torrent.addedOn)), ("Completed", Output.date(torrent.completionOn)),
            ("Comment", (properties["comment"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? "-"),
        ]
        for (key, value) in rows { print(key.padding(toLength: 11, withPad: " ", startingAt: 0) + value) }
    }
}

struct Files: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List a torrent's files with their priorities.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("A hash or unique prefix.", valueName: "hash")) var hash: String

    func run() async throws {
        let client = try await global.client()
        let hash = try await client.resolve([hash])[0]
        if global.json { return Output.printJSON(try await client.json("torrents/files", query: [("hash", hash)])) }
        let files = try await client.files(hash)
        print(Output.table(["#", "PRIORITY", "DONE", "SIZE", "NAME"], files.map {
            [String($0.index), Prio.name($0.priority), Output.percent($0.progress), Output.bytes($0.size), $0.name]
        }, flex: 4, rightAligned: [0, 2, 3]))
    }
}

struct Prio: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Set the priority of files of a torrent.",
        discussion: "Priorities: skip (0), normal (1), high (6), max (7). File indexes as `qbt files` shows them, comma-separated.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("A hash or unique prefix.", valueName: "hash")) var hash: String
    @Argument(help: ArgumentHelp("File indexes, e.g. 0,2,5.", valueName: "files")) var files: String
    @Argument(help: ArgumentHelp("skip, normal, high or max.", valueName: "priority")) var priority: String

    static let names = ["skip": 0, "normal": 1, "high": 6, "max": 7]
    static func name(_ value: Int) -> String { names.first { $0.value == value }?.key ?? String(value) }

    func run() async throws {
        guard let value = Prio.names[priority.lowercased()] ?? Int(priority).flatMap({ [0, 1, 6, 7].contains($0) ? $0 : nil }) else {
            throw ValidationError("unknown priority \(priority): use skip, normal, high or max")
        }
        let ids = try files.split(separator: ",").map { part -> Int in
            guard let id = Int(part.trimmingCharacters(in: .whitespaces)), id >= 0 else { throw ValidationError("not a file index: \(part)") }
            return id
        }
        let client = try await global.client()
        let hash = try await client.resolve([hash])[0]
        let count = try await client.files(hash).count
        if let bad = ids.first(where: { $0 >= count }) {
            throw QBTClientError.notFound("the torrent has no file \(bad) (it has \(count): see `qbt files \(hash.prefix(8))`)")
        }
        try await client.filePriority(hash, ids: ids, priority: value)
        if global.json { Output.printJSON(["hash": hash, "files": ids, "priority": value]) }
        else { print("Set \(ids.count) file\(ids.count == 1 ? "" : "s") to \(Prio.name(value)).") }
    }
}

struct Trackers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List, add or remove a torrent's trackers.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("A hash or unique prefix.", valueName: "hash")) var hash: String
    @Option(help: ArgumentHelp("Add a tracker URL (repeatable).", valueName: "url")) var add: [String] = []
    @Option(help: ArgumentHelp("Remove a tracker URL (repeatable).", valueName: "url")) var remove: [String] = []

    func run() async throws {
        let client = try await global.client()
        let hash = try await client.resolve([hash])[0]
        if !add.isEmpty { try await client.call("torrents/addTrackers", .form([("hash", hash), ("urls", add.joined(separator: "\n"))])) }
        if !remove.isEmpty { try await client.call("torrents/removeTrackers", .form([("hash", hash), ("urls", remove.joined(separator: "|"))])) }
        if global.json { return Output.printJSON(try await client.json("torrents/trackers", query: [("hash", hash)])) }
        let status = ["disabled", "not contacted", "working", "updating", "not working"]
        print(Output.table(["TIER", "STATUS", "SEEDS", "PEERS", "URL", "MESSAGE"], try await client.trackers(hash).map {
            [$0.tier < 0 ? "" : String($0.tier), $0.status < status.count ? status[$0.status] : String($0.status),
             $0.numSeeds < 0 ? "" : String($0.numSeeds), $0.numPeers < 0 ? "" : String($0.numPeers), $0.url, $0.msg]
        }, flex: 4))
    }
}

struct Peers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List a torrent's peers, or add some.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("A hash or unique prefix.", valueName: "hash")) var hash: String
    @Option(help: ArgumentHelp("Connect to a peer, host:port (repeatable).", valueName: "peer")) var add: [String] = []

    func run() async throws {
        let client = try await global.client()
        let hash = try await client.resolve([hash])[0]
        if !add.isEmpty { try await client.torrentsAction("addPeers", hashes: [hash], [("peers", add.joined(separator: "|"))]) }
        if global.json { return Output.printJSON(try await client.json("sync/torrentPeers", query: [("hash", hash)])) }
        let peers = try await client.peers(hash)
        if peers.isEmpty { return Output.note(add.isEmpty ? "No peers." : "Asked to connect to \(add.count) peer\(add.count == 1 ? "" : "s").") }
        print(Output.table(["PEER", "CLIENT", "FLAGS", "DONE", "DOWN", "UP"], peers.keys.sorted().map { key in
            let p = peers[key]!
            return [key, p.client, p.flags, Output.percent(p.progress), Output.rate(p.dlSpeed), Output.rate(p.upSpeed)]
        }, flex: 1, rightAligned: [3, 4, 5]))
    }
}
