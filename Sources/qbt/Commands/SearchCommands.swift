import ArgumentParser
import Foundation
import QBTClient

struct Search: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Search with the server's search plugins, and manage them.",
        discussion: "qbt search ubuntu --add 1   adds the first result.",
        subcommands: [RunSearch.self, Plugins.self], defaultSubcommand: RunSearch.self)

    struct RunSearch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "run", abstract: "Search, show live progress, then the results.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "What to search for.") var pattern: [String]
        @Option(help: "Plugins: all, enabled, or names separated by |.") var plugins = "enabled"
        @Option(help: "A category: all, movies, tv, music, games, anime, software, pictures, books.") var category = "all"
        @Option(help: "Show at most this many results (most seeders first).") var limit = 20
        @Option(help: ArgumentHelp("Add result N (as numbered in the table) to the server.", valueName: "n")) var add: Int?
        @Option(help: "Stop searching after this many seconds.") var timeout: Double = 60

        func validate() throws {
            if limit < 1 { throw ValidationError("--limit must be at least 1") }
            if let add, add < 1 { throw ValidationError("--add counts from 1") }
            if timeout <= 0 || timeout > 3600 { throw ValidationError("--timeout must be between 0 and 3600 seconds") }
        }

        func run() async throws {
            let client = try await global.client()
            let text = pattern.joined(separator: " ")
            let id = try await client.search.start(pattern: text, plugins: plugins, category: category)
            let deadline = ContinuousClock.now + .seconds(timeout)
            var total = 0
            while ContinuousClock.now < deadline {
                let state = try await client.search.status(id)
                total = state?.total ?? total
                status("searching \"\(text)\": \(total) result\(total == 1 ? "" : "s")…")
                if state?.status != "Running" { break }
                try await Task.sleep(nanoseconds: 250_000_000)
            }
            endStatus()
            try? await client.search.stop(id)
            let all = try await client.search.results(id).results
            try? await client.search.delete(id)
            let shown = Array(all.sorted { $0.nbSeeders > $1.nbSeeders }.prefix(limit))
            if let add {
                guard add <= shown.count else { throw QBTClientError.notFound("there is no result \(add): the search found \(shown.count)") }
                var request = AddRequest()
                request.urls = [shown[add - 1].fileUrl]
                try await client.add(request)
            }
            if global.json {
                let data = Output.encodable(shown)
                return Output.printJSON(add.map { ["results": data, "added": shown[$0 - 1].fileName] as [String: Any] } ?? data)
            }
            if shown.isEmpty { return Output.note("No results for \"\(text)\".") }
            print(Output.table(["#", "NAME", "SIZE", "SEEDS", "PEERS", "ENGINE"], shown.enumerated().map { i, r in
                [String(i + 1), r.fileName, Output.bytes(r.fileSize), r.nbSeeders < 0 ? "?" : String(r.nbSeeders),
                 r.nbLeechers < 0 ? "?" : String(r.nbLeechers), r.engineName]
            }, flex: 1, rightAligned: [0, 2, 3, 4]))
            if all.count > shown.count { Output.note("\(all.count - shown.count) more: raise --limit to see them.") }
            if let add { print("Added \(shown[add - 1].fileName).") }
        }
    }

    struct Plugins: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List, install, uninstall, enable, disable and update search plugins.",
            subcommands: [ListPlugins.self, Install.self, Uninstall.self, Enable.self, Disable.self, Update.self],
            defaultSubcommand: ListPlugins.self)
    }

    struct ListPlugins: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List search plugins.")
        @OptionGroup var global: GlobalOptions
        func run() async throws {
            let client = try await global.client()
            if global.json { return Output.printJSON(try await client.json("search/plugins")) }
            let plugins = try await client.search.plugins()
            if plugins.isEmpty { return Output.note("No search plugins: add one with `qbt search plugins install URL`.") }
            print(Output.table(["NAME", "ENABLED", "VERSION", "FULL NAME", "URL"], plugins.map {
                [$0.name, $0.enabled ? "yes" : "no", $0.version, $0.fullName, $0.url]
            }, flex: 4))
        }
    }

    struct Install: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Install plugins from URLs or paths on the server.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Plugin URLs or server-side paths.") var sources: [String]
        func run() async throws {
            try await global.client().search.install(sources)
            if global.json { Output.printJSON(["installing": sources]) } else { print("Asked the server to install \(sources.count) plugin\(sources.count == 1 ? "" : "s"): see `qbt search plugins` and `qbt log`.") }
        }
    }

    struct Uninstall: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Uninstall plugins.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Plugin names.") var names: [String]
        func run() async throws {
            try await global.client().search.uninstall(names)
            if global.json { Output.printJSON(["uninstalled": names]) } else { print("Uninstalled \(names.joined(separator: ", ")).") }
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enable plugins.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Plugin names.") var names: [String]
        func run() async throws {
            try await global.client().search.enable(names, enable: true)
            if global.json { Output.printJSON(["enabled": names]) } else { print("Enabled \(names.joined(separator: ", ")).") }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Disable plugins.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Plugin names.") var names: [String]
        func run() async throws {
            try await global.client().search.enable(names, enable: false)
            if global.json { Output.printJSON(["disabled": names]) } else { print("Disabled \(names.joined(separator: ", ")).") }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Update plugins from their URLs.")
        @OptionGroup var global: GlobalOptions
        func run() async throws {
            try await global.client().search.update()
            if global.json { Output.printJSON(["updating": true]) } else { print("Asked the server to update its plugins.") }
        }
    }
}
