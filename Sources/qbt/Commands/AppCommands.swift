import ArgumentParser
import Foundation
import QBTClient

struct App: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the server's version, WebAPI version and build.")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let client = try await global.client()
        let version = try await client.appVersion()
        let api = try await client.apiVersion()
        let build = try await client.buildInfo()
        let path = (try? await client.call("app/defaultSavePath").text) ?? ""
        if global.json {
            return Output.printJSON(["version": version, "webapiVersion": api.description, "buildInfo": build,
                                     "defaultSavePath": path, "url": client.baseURL.absoluteString])
        }
        print("Server      \(client.baseURL.absoluteString)")
        print("Version     qBittorrent \(version), WebAPI \(api)")
        let parts = ["qt", "libtorrent", "boost", "openssl", "zlib", "bitness"].compactMap { key in
            build[key].map { "\(key) \($0)" }
        }
        if !parts.isEmpty { print("Build       " + parts.joined(separator: ", ")) }
        if !path.isEmpty { print("Save path   \(path)") }
    }
}

struct Transfer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show global transfer figures, or set the global speed limits.",
        discussion: "Rates like 500K or 2M; 0 for unlimited.")
    @OptionGroup var global: GlobalOptions
    @Option(help: "Global download limit.") var downloadLimit: String?
    @Option(help: "Global upload limit.") var uploadLimit: String?
    @Flag(help: "Switch the alternative speed limits on or off.") var toggleAltSpeed = false

    func run() async throws {
        let client = try await global.client()
        if let downloadLimit { try await client.call("transfer/setDownloadLimit", .form([("limit", String(try parseRate(downloadLimit)))])) }
        if let uploadLimit { try await client.call("transfer/setUploadLimit", .form([("limit", String(try parseRate(uploadLimit)))])) }
        if toggleAltSpeed { try await client.call("transfer/toggleSpeedLimitsMode", .form([])) }
        if global.json {
            var info = try await client.json("transfer/info") as? [String: Any] ?? [:]
            info["alt_speed"] = (try? await client.call("transfer/speedLimitsMode").text) == "1"
            return Output.printJSON(info)
        }
        let t = try await client.transferInfo()
        let alt = (try? await client.call("transfer/speedLimitsMode").text) == "1"
        print("Status      \(t.connectionStatus)")
        print("Download    \(Output.rate(t.dlInfoSpeed)) (limit \(Output.limit(t.dlRateLimit))), \(Output.bytes(t.dlInfoData)) this session")
        print("Upload      \(Output.rate(t.upInfoSpeed)) (limit \(Output.limit(t.upRateLimit))), \(Output.bytes(t.upInfoData)) this session")
        print("Alt. speed  \(alt ? "on" : "off")")
    }
}

struct Log: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the server's log.")
    @OptionGroup var global: GlobalOptions
    @Option(help: "Only entries after this id.") var since: Int = -1
    @Option(help: "Levels, comma-separated: normal, info, warning, critical.") var level = "normal,info,warning,critical"
    @Option(help: "Only the last N entries.") var last: Int?
    @Flag(help: "Keep printing new entries.") var follow = false
    @Option(help: "With --follow, stop after this many polls.") var count: Int?

    func run() async throws {
        let levels = Set(level.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
        let known: Set<String> = ["normal", "info", "warning", "critical"]
        guard levels.isSubset(of: known), !levels.isEmpty else { throw ValidationError("levels are normal, info, warning, critical") }
        let client = try await global.client()
        var lastID = since
        var polls = 0
        repeat {
            if polls > 0 { try await Task.sleep(nanoseconds: 1_000_000_000) }
            polls += 1
            var entries = try await client.log(lastKnownID: lastID, levels: levels)
            if polls == 1, let last { entries = Array(entries.suffix(last)) }
            lastID = entries.last?.id ?? lastID
            for entry in entries {
                if global.json {
                    print(Output.json(["id": entry.id, "message": entry.message, "timestamp": entry.timestamp, "type": entry.type],
                                      pretty: false))
                } else {
                    let kind = [1: "", 2: "info ", 4: "WARNING ", 8: "CRITICAL "][entry.type] ?? ""
                    // 5.x gives milliseconds, 4.x seconds.
                    let seconds = entry.timestamp > 100_000_000_000 ? entry.timestamp / 1000 : entry.timestamp
                    print("\(Output.date(seconds))  \(kind)\(entry.message)")
                }
            }
            fflush(nil)
        } while follow && count.map({ polls < $0 }) ?? true
    }
}

struct Prefs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read and change the server's preferences.",
        subcommands: [Get.self, Set.self], defaultSubcommand: Get.self)

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print preferences (all, or the keys given).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Preference keys, e.g. save_path dl_limit.") var keys: [String] = []

        func run() async throws {
            let all = try await global.client().preferences()
            if let missing = keys.first(where: { all[$0] == nil }) {
                throw QBTClientError.notFound("no preference named \(missing): `qbt prefs get` lists them")
            }
            let picked = keys.isEmpty ? all : all.filter { keys.contains($0.key) }
            if global.json { return Output.printJSON(picked) }
            if keys.count == 1 { return print(Prefs.text(picked[keys[0]]!)) }
            for key in picked.keys.sorted() { print("\(key) = \(Prefs.text(picked[key]!))") }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change preferences: KEY=VALUE …",
            discussion: "Values are read as JSON when they parse (true, 42, [\"a\"]) and as text otherwise.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "KEY=VALUE pairs.") var pairs: [String]

        func run() async throws {
            var values: [String: Any] = [:]
            for pair in pairs {
                guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else { throw ValidationError("expected KEY=VALUE, got \(pair)") }
                let key = String(pair[..<eq]), raw = String(pair[pair.index(after: eq)...])
                values[key] = (try? JSONSerialization.jsonObject(with: Data(raw.utf8), options: [.fragmentsAllowed])) ?? raw
            }
            let client = try await global.client()
            let known = try await client.preferences()
            if let unknown = values.keys.first(where: { known[$0] == nil }) {
                throw QBTClientError.notFound("no preference named \(unknown): `qbt prefs get` lists them")
            }
            try await client.setPreferences(values)
            if global.json { return Output.printJSON(values) }
            print("Set \(values.keys.sorted().joined(separator: ", ")).")
        }
    }

    static func text(_ value: Any) -> String {
        if let s = value as? String { return s }
        return Output.json(value, pretty: false)
    }
}
