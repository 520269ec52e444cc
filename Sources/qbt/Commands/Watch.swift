import ArgumentParser
import Foundation
import QBTClient

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A live view of the torrents, refreshed from sync/maindata diffs.",
        discussion: "With --json, prints each diff the server sends as one JSON line. Ctrl-C ends it.")
    @OptionGroup var global: GlobalOptions
    @Option(help: "Seconds between refreshes.") var interval: Double = 2
    @Option(help: "Stop after this many refreshes (default: run until interrupted).") var count: Int?

    func validate() throws {
        if interval < 0.1 || interval > 3600 { throw ValidationError("--interval must be between 0.1 and 3600 seconds") }
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
    }

    func run() async throws {
        let client = try await global.client()
        var torrents: [String: [String: Any]] = [:]
        var server: [String: Any] = [:]
        var rid = 0
        var round = 0
        while count.map({ round < $0 }) ?? true {
            if round > 0 { try await Task.sleep(nanoseconds: UInt64(interval * 1e9)) }
            round += 1
            let diff = try await client.maindata(rid: rid)
            rid = (diff["rid"] as? NSNumber)?.intValue ?? 0
            if global.json {
                print(Output.json(diff, pretty: false))
                fflush(nil)
                continue
            }
            if (diff["full_update"] as? Bool) == true { torrents = [:]; server = [:] }
            for (hash, fields) in diff["torrents"] as? [String: [String: Any]] ?? [:] {
                torrents[hash, default: [:]].merge(fields) { $1 }
            }
            for hash in diff["torrents_removed"] as? [String] ?? [] { torrents[hash] = nil }
            server.merge(diff["server_state"] as? [String: Any] ?? [:]) { $1 }
            render(torrents, server)
        }
    }

    func render(_ torrents: [String: [String: Any]], _ server: [String: Any]) {
        func int(_ o: [String: Any], _ k: String) -> Int64 { (o[k] as? NSNumber)?.int64Value ?? 0 }
        let rows = torrents.sorted { ($0.value["name"] as? String ?? "") < ($1.value["name"] as? String ?? "") }.map { hash, t in
            [String(hash.prefix(8)), t["name"] as? String ?? "", Output.percent((t["progress"] as? NSNumber)?.doubleValue ?? 0),
             t["state"] as? String ?? "", Output.rate(int(t, "dlspeed")), Output.rate(int(t, "upspeed")),
             "\(int(t, "num_seeds"))/\(int(t, "num_leechs"))"]
        }
        var screen = Output.stdoutIsTTY ? "\u{1B}[H\u{1B}[2J" : ""
        screen += "qbt watch — \(torrents.count) torrents, down \(Output.rate(int(server, "dl_info_speed"))), up \(Output.rate(int(server, "up_info_speed"))) — \(Output.date(Int64(Date().timeIntervalSince1970)))\n"
        screen += Output.table(["HASH", "NAME", "DONE", "STATE", "DOWN", "UP", "SEEDS/PEERS"], rows, flex: 1, rightAligned: [2, 4, 5, 6])
        print(screen + (Output.stdoutIsTTY ? "" : "\n"))
        fflush(nil)
    }
}
