import Foundation
import Synchronization
import QBTCore
import Store

/// qBittorrent's search engine: installed plugins (nova3 Python engines, Torznab indexers, and the built-in
/// one that searches qbtd's own torrents) and the search jobs of each client.
public actor SearchService {
    public enum Failure: Error, Equatable {
        case noPython
        case tooManySearches
        /// Every client together runs as many searches as qbtd allows (each runs a process per plugin).
        case tooManySearchesOverall
        case unknownJob
        case offsetOutOfRange
    }

    /// As qBittorrent: at most this many running searches per client session.
    public static let maxConcurrentSearches = 5
    /// qbtd's bounds: running searches over every client, and searches (running or done) kept per client (past it,
    /// a new search forgets that client's oldest finished one).
    public static let maxRunningSearchesOverall = 32
    public static let maxKeptSearchesPerClient = 50
    static let builtinName = "qbtd_local"

    let store: any Store
    let novaDirectory: String
    let torrents: TorrentService
    let settings: ServerSettings
    let log: EventLog
    /// How long one plugin may run (qBittorrent: 3 minutes).
    let timeout: Duration
    /// How much one plugin run may print before it is stopped.
    let maxOutput: Int
    /// 5.3's novaprinter: result names percent-encoded (a `|` in a name survives).
    let quotedNames: Bool
    var plugins: [String: SearchPluginRecord] = [:]
    var jobs: [String: [Int: SearchJob]] = [:]
    /// The warm interpreter that forks plugin runs, for the Python last used (made at the first search).
    var forkServer: NovaForkServer?
    /// Whether the nova3 helper scripts are in place (they could not be written at start when the disk was full).
    var scriptsInstalled = false

    public init(store: any Store, dataDirectory: String, torrents: TorrentService, settings: ServerSettings,
                log: EventLog, timeout: Duration = .seconds(180), maxOutput: Int = 16 << 20,
                quotedNames: Bool = false) async throws {
        self.quotedNames = quotedNames
        self.store = store
        self.novaDirectory = dataDirectory + "/nova3"
        self.torrents = torrents
        self.settings = settings
        self.log = log
        self.timeout = timeout
        self.maxOutput = maxOutput
        // Not fatal: a start with the data directory's disk full (or read-only) must still serve everything else.
        // The next search with a nova3 plugin writes them again.
        scriptsInstalled = installScripts()
        for record in try await store.searchPlugins.searchPlugins() { plugins[record.name] = record }
        if plugins[Self.builtinName] == nil {
            let builtin = SearchPluginRecord(name: Self.builtinName, kind: .builtin, version: "1.0",
                                             fullName: "Torrents in qbtd", url: "qbtd://torrents",
                                             categories: Array(SearchCategory.all.dropFirst()))
            try await store.searchPlugins.saveSearchPlugin(builtin)
            plugins[builtin.name] = builtin
        }
        if let python = await python() {
            // Warm before the first search when there is a plugin to run (no CPU while it waits).
            if plugins.values.contains(where: { $0.kind == .nova3 }) { forkServer(for: python)?.prewarm() }
        } else {
            log.add("Python not found: nova3 search plugins need python3 (apt-get install python3); "
                    + "Torznab indexers and the built-in search work without it", kind: .warning)
        }
    }

    deinit { forkServer?.shutdown() }

    /// Writes the nova3 helper scripts; a failure is logged (nova3 searches then fail until they can be written).
    func installScripts() -> Bool {
        do {
            try NovaScripts.install(into: novaDirectory, quotedNames: quotedNames)
            return true
        } catch {
            log.add("The nova3 search scripts could not be written to \(novaDirectory) (\(error.localizedDescription)): "
                    + "nova3 searches fail until they can be; free space there", kind: .warning)
            return false
        }
    }

    /// The fork server for `python`: the one running, or a new one (the old one ends when Python changed); nil
    /// when it cannot be made, and plugins then start as processes of their own.
    func forkServer(for python: String) -> NovaForkServer? {
        if let server = forkServer, server.python == python { return server }
        forkServer?.shutdown()
        forkServer = try? NovaForkServer(python: python, script: novaDirectory + "/qbtd_forkserver.py",
                                         fifoDirectory: novaDirectory + "/.runs")
        return forkServer
    }

    // MARK: python

    /// The `python_executable_path` preference (5.0), else `python3`, then `python` on PATH.
    func python() async -> String? {
        let preferred = settings[\.pythonExecutablePath]
        if !preferred.isEmpty { return FileManager.default.isExecutableFile(atPath: preferred) ? preferred : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for name in ["python3", "python"] {
            for dir in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") {
                return "\(dir)/\(name)"
            }
        }
        return nil
    }

    // MARK: jobs

    /// `plugins`: `all`, `enabled` (or `multi`), or names separated by `|`.
    public func start(owner: String, pattern: String, category: String, plugins selection: String) async throws -> Int {
        let names = selectedPlugins(selection)
        let chosen = names.compactMap { plugins[$0] }
        let python = await python()
        if chosen.contains(where: { $0.kind == .nova3 }), python == nil { throw Failure.noPython }
        if chosen.contains(where: { $0.kind == .nova3 }), !scriptsInstalled { scriptsInstalled = installScripts() }
        let running = jobs[owner, default: [:]].values.filter(\.isRunning).count
        guard running < Self.maxConcurrentSearches else { throw Failure.tooManySearches }
        guard runningJobs < Self.maxRunningSearchesOverall else { throw Failure.tooManySearchesOverall }
        if let kept = jobs[owner], kept.count >= Self.maxKeptSearchesPerClient,
           let oldest = kept.filter({ !$0.value.isRunning }).keys.min(by: { kept[$0]!.startedAt < kept[$1]!.startedAt }) {
            jobs[owner]?[oldest] = nil
        }
        var id = Int.random(in: 1...Int(Int32.max))
        while jobs[owner]?[id] != nil { id = Int.random(in: 1...Int(Int32.max)) }
        let job = SearchJob(id: id, pattern: pattern, category: category, plugins: names)
        jobs[owner, default: [:]][id] = job
        let words = pattern.split(separator: " ").map(String.init)
        // qBittorrent names a result's engine by its site url: the first installed plugin with that url.
        let urls = plugins.values.filter { $0.kind == .nova3 }.sorted { $0.name < $1.name }.map { ($0.url, $0.name) }
        let route = settings.fetchRoute(for: .misc)
        let proxyEnvironment = settings.pluginProxyEnvironment()
        for plugin in chosen {
            switch plugin.kind {
            case .nova3:
                guard let python else { continue }
                let server = forkServer(for: python)
                job.launch { [novaDirectory, timeout, maxOutput, log, quotedNames] in
                    await Self.runNova(plugin, python: python, novaDirectory: novaDirectory, category: category, words: words,
                                       job: job, engineNames: urls, environment: proxyEnvironment, timeout: timeout,
                                       maxOutput: maxOutput, log: log, server: server, quotedNames: quotedNames)
                }
            case .torznab:
                job.launch { [timeout, log] in
                    do {
                        let found = try await Torznab.search(
                            base: plugin.url, apiKey: plugin.apiKey ?? "", query: pattern, category: category,
                            engine: plugin.name, siteURL: plugin.url, route: route, timeout: Int(timeout.components.seconds))
                        job.append(found)
                    } catch {
                        log.add("Search plugin '\(plugin.name)' failed: \(error)", kind: .warning)
                    }
                }
            case .builtin:
                let found = await localResults(pattern: pattern, category: category)
                job.launch { job.append(found) }
            }
        }
        return id
    }

    func selectedPlugins(_ selection: String) -> [String] {
        let tokens = selection.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        if tokens.count == 1 {
            switch tokens[0].lowercased() {
            case "all": return plugins.keys.sorted()
            case "enabled", "multi": return plugins.values.filter(\.enabled).map(\.name).sorted()
            default: break
            }
        }
        return tokens
    }

    /// One nova3 engine in its own process; good lines become results, the rest is counted and logged.
    static func runNova(_ plugin: SearchPluginRecord, python: String, novaDirectory: String, category: String,
                        words: [String], job: SearchJob, engineNames: [(url: String, name: String)],
                        environment: [String: String], timeout: Duration,
                        maxOutput: Int, log: EventLog, server: NovaForkServer?, quotedNames: Bool = false) async {
        let run = NovaProcess(python: python, script: novaDirectory + "/qbtd_run.py",
                              arguments: [plugin.name, category] + words, environment: environment, server: server)
        guard job.track(run) else { return }
        let malformed = Counter()
        let ending = await run.run(timeout: timeout, maxOutput: maxOutput) { lines in
            var found: [SearchResult] = []
            found.reserveCapacity(lines.count)
            var bad = 0
            for line in lines where !line.allSatisfy(\.isWhitespace) {
                guard var result = SearchResult.parse(line: line, engine: "", quotedName: quotedNames) else { bad += 1; continue }
                // qBittorrent names the engine whose url is the result's site url.
                result.engineName = engineNames.first { $0.url == result.siteURL }?.name ?? ""
                found.append(result)
            }
            job.append(found)
            malformed.add(bad)
        }
        if malformed.value > 0 {
            log.add("Search plugin '\(plugin.name)' printed \(malformed.value) line(s) that are not results", kind: .warning)
        }
        switch ending {
        case .finished, .stopped: break
        case .timedOut: log.add("Search plugin '\(plugin.name)' timed out and was stopped", kind: .warning)
        case .tooMuchOutput: log.add("Search plugin '\(plugin.name)' printed too much and was stopped", kind: .warning)
        case .failed(let why):
            log.add("Search plugin '\(plugin.name)' failed (\(why))", kind: .warning)
        }
    }

    /// The built-in plugin: torrents qbtd has whose name holds every word of the pattern.
    func localResults(pattern: String, category: String) async -> [SearchResult] {
        let words = pattern.lowercased().split(separator: " ")
        return await torrents.views().compactMap { view in
            let name = view.name.lowercased()
            guard !words.isEmpty, words.allSatisfy({ name.contains($0) }) else { return nil }
            let s = view.status
            return SearchResult(fileName: view.name, fileURL: view.magnetURI(withSize: true), fileSize: s.totalWanted,
                                seeders: Int64(max(s.numComplete, s.numSeeds)), leechers: Int64(max(s.numIncomplete, 0)),
                                siteURL: "qbtd://torrents", engineName: Self.builtinName, pubDate: view.record.addedOn)
        }
    }

    func job(_ owner: String, _ id: Int) throws -> SearchJob {
        guard let job = jobs[owner]?[id] else { throw Failure.unknownJob }
        return job
    }

    public func stop(owner: String, id: Int) throws { try job(owner, id).stop() }

    /// Search jobs still running, every owner's (for metrics).
    public var runningJobs: Int { jobs.values.reduce(0) { $0 + $1.values.filter(\.isRunning).count } }

    public func delete(owner: String, id: Int) throws {
        try job(owner, id).stop()
        jobs[owner]?[id] = nil
    }

    /// Every job of the client (id 0), or the one.
    public func status(owner: String, id: Int) throws -> [SearchJob] {
        if id != 0 { return [try job(owner, id)] }
        return jobs[owner, default: [:]].values.sorted { $0.id < $1.id }
    }

    public func results(owner: String, id: Int, limit: Int, offset: Int) throws -> (results: [SearchResult], total: Int, running: Bool) {
        guard let page = try job(owner, id).page(limit: limit, offset: offset) else { throw Failure.offsetOutOfRange }
        return page
    }
}

/// A count bumped from a reader thread.
final class Counter: Sendable {
    private let count = Mutex(0)
    func add(_ n: Int = 1) { count.withLock { $0 += n } }
    var value: Int { count.withLock { $0 } }
}
