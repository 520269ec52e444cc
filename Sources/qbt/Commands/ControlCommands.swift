import ArgumentParser
import Foundation
import QBTClient

/// `stop`/`start`, also under 4.x's names `pause`/`resume`: either works against either server.
struct RunState {
    static func set(_ running: Bool, _ global: GlobalOptions, _ hashes: [String]) async throws {
        let client = try await global.client()
        let resolved = try await client.resolve(hashes)
        try await client.setRunning(running, hashes: resolved)
        if global.json { Output.printJSON(["hashes": resolved, "running": running]) }
        else { print("\(running ? "Started" : "Stopped") \(Output.torrents(resolved)).") }
    }
}

struct Stop: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Stop torrents (qBittorrent 4: pause).", aliases: ["pause"])
    @OptionGroup var global: GlobalOptions
    @OptionGroup var targets: HashArguments
    func run() async throws { try await RunState.set(false, global, targets.hashes) }
}

struct Start: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start torrents (qBittorrent 4: resume).", aliases: ["resume"])
    @OptionGroup var global: GlobalOptions
    @OptionGroup var targets: HashArguments
    func run() async throws { try await RunState.set(true, global, targets.hashes) }
}

struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Remove torrents, and with --files their data too.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var targets: HashArguments
    @Flag(help: "Delete the downloaded files as well.") var files = false

    func run() async throws {
        let client = try await global.client()
        let resolved = try await client.resolve(targets.hashes)
        try await client.delete(hashes: resolved, deleteFiles: files)
        if global.json { return Output.printJSON(["deleted": resolved, "files": files]) }
        print("Removed \(Output.torrents(resolved))\(files ? " and their files" : "").")
    }
}

struct Move: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Move torrents' data to another folder.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var targets: HashArguments
    @Option(help: ArgumentHelp("The new save path.", valueName: "path")) var to: String

    func run() async throws {
        let client = try await global.client()
        let resolved = try await client.resolve(targets.hashes)
        try await client.torrentsAction("setLocation", hashes: resolved, [("location", to)])
        if global.json { return Output.printJSON(["hashes": resolved, "location": to]) }
        print("Moving \(Output.torrents(resolved)) to \(to).")
    }
}

struct Rename: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rename a torrent, or with --file one of its files or folders.",
        discussion: "qbt rename HASH NEW-NAME; qbt rename HASH --file OLD/PATH NEW/PATH")
    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("A hash or unique prefix.", valueName: "hash")) var hash: String
    @Argument(help: ArgumentHelp("The new name (or new path with --file).", valueName: "name")) var name: String
    @Option(help: ArgumentHelp("Rename this file (or folder, if it ends with /) inside the torrent.", valueName: "old-path")) var file: String?

    func run() async throws {
        let client = try await global.client()
        let hash = try await client.resolve([hash])[0]
        if let file {
            let folder = file.hasSuffix("/")
            let old = folder ? String(file.dropLast()) : file
            try await client.call(folder ? "torrents/renameFolder" : "torrents/renameFile",
                                  .form([("hash", hash), ("oldPath", old), ("newPath", name)]))
        } else {
            try await client.call("torrents/rename", .form([("hash", hash), ("name", name)]))
        }
        if global.json { return Output.printJSON(["hash": hash, "name": name]) }
        print("Renamed to \(name).")
    }
}

struct Recheck: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check torrents' data against their hashes again.")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var targets: HashArguments

    func run() async throws {
        let client = try await global.client()
        let resolved = try await client.resolve(targets.hashes)
        try await client.torrentsAction("recheck", hashes: resolved)
        if global.json { return Output.printJSON(["rechecking": resolved]) }
        print("Rechecking \(Output.torrents(resolved)).")
    }
}

struct Limits: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show or set torrents' speed and share limits.",
        discussion: "Without options, shows the limits. Rates like 500K or 2M, 0 for unlimited; share limits a number, none, or global (follow the server's).")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var targets: HashArguments
    @Option(help: "Download limit, e.g. 2M (0: unlimited).") var download: String?
    @Option(help: "Upload limit, e.g. 500K (0: unlimited).") var upload: String?
    @Option(help: "Share ratio limit: a number, none, or global.") var ratio: String?
    @Option(help: "Seeding time limit in minutes: a number, none, or global.") var seedingTime: String?
    @Option(help: "Inactive seeding time limit in minutes: a number, none, or global.") var inactiveSeedingTime: String?

    /// qBittorrent's share-limit numbers: -2 follows the global limit, -1 is none.
    static func shareLimit(_ text: String, _ what: String) throws -> Double {
        switch text.lowercased() {
        case "global", "-2": return -2
        case "none", "unlimited", "-1": return -1
        default:
            guard let value = Double(text), value >= 0 else { throw ValidationError("\(what) must be a number ≥ 0, none or global") }
            return value
        }
    }

    func validate() throws {
        _ = try ratio.map { try Limits.shareLimit($0, "--ratio") }
        _ = try seedingTime.map { try Limits.shareLimit($0, "--seeding-time") }
        _ = try inactiveSeedingTime.map { try Limits.shareLimit($0, "--inactive-seeding-time") }
    }

    func run() async throws {
        let client = try await global.client()
        let named = try await client.resolveTorrents(targets.hashes)
        let resolved = targets.hashes == ["all"] ? ["all"] : named.map(\.hash)
        if let download { try await client.torrentsAction("setDownloadLimit", hashes: resolved, [("limit", String(try parseRate(download)))]) }
        if let upload { try await client.torrentsAction("setUploadLimit", hashes: resolved, [("limit", String(try parseRate(upload)))]) }
        if ratio != nil || seedingTime != nil || inactiveSeedingTime != nil {
            // qBittorrent sets the three share limits together: the ones not given keep each torrent's own value.
            let ratioLimit = try ratio.map { try Limits.shareLimit($0, "--ratio") }
            let seeding = try seedingTime.map { Int(try Limits.shareLimit($0, "--seeding-time")) }
            let inactive = try inactiveSeedingTime.map { Int(try Limits.shareLimit($0, "--inactive-seeding-time")) }
            let groups = Dictionary(grouping: named) { t in
                [String(ratioLimit ?? t.ratioLimit), String(seeding ?? Int(t.seedingTimeLimit)),
                 String(inactive ?? Int(t.inactiveSeedingTimeLimit))]
            }
            for (values, group) in groups {
                try await client.torrentsAction("setShareLimits", hashes: group.map(\.hash), [
                    ("ratioLimit", values[0]), ("seedingTimeLimit", values[1]), ("inactiveSeedingTimeLimit", values[2]),
                ])
            }
        }
        let changed = download != nil || upload != nil || ratio != nil || seedingTime != nil || inactiveSeedingTime != nil
        let torrents = changed ? try await client.torrents(TorrentQuery(hashes: named.map(\.hash))) : named
        if global.json {
            return Output.printJSON(torrents.map {
                ["hash": $0.hash, "dl_limit": $0.dlLimit, "up_limit": $0.upLimit, "ratio_limit": $0.ratioLimit,
                 "seeding_time_limit": $0.seedingTimeLimit, "inactive_seeding_time_limit": $0.inactiveSeedingTimeLimit] as [String: Any]
            })
        }
        func share(_ v: Double) -> String { v == -2 ? "global" : v < 0 ? "none" : String(format: "%.2f", v) }
        func minutes(_ v: Int64) -> String { v == -2 ? "global" : v < 0 ? "none" : "\(v) min" }
        print(Output.table(["HASH", "NAME", "DOWN", "UP", "RATIO", "SEEDING", "INACTIVE"], torrents.map {
            [String($0.hash.prefix(8)), $0.name, Output.limit($0.dlLimit), Output.limit($0.upLimit), share($0.ratioLimit),
             minutes($0.seedingTimeLimit), minutes($0.inactiveSeedingTimeLimit)]
        }, flex: 1))
    }
}
