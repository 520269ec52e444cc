import Foundation
import Synchronization
import HTTPFetch
import QBTCore
import Store

/// Installing, listing, enabling and removing plugins. As in qBittorrent, installs report to the log, not to
/// the caller; unlike qBittorrent they are done when `installPlugin` answers, so the list is current at once.
extension SearchService {
    public struct PluginInfo: Sendable {
        public var record: SearchPluginRecord
        /// "0.0" when the plugin states none (qBittorrent's `Version<2>`).
        public var version: String { record.version.isEmpty ? "0.0" : record.version }
    }

    public var pluginList: [PluginInfo] { plugins.values.sorted { $0.name < $1.name }.map(PluginInfo.init) }

    /// `sources`: http(s) URLs or local paths of `.py` files.
    public func install(sources: [String]) async {
        for source in sources.map({ $0.trimmingCharacters(in: .whitespaces) }) where !source.isEmpty {
            do {
                let name = try await install(source: source)
                log.add("Search plugin '\(name)' installed from \(source)", kind: .info)
            } catch {
                log.add("Search plugin \(source) could not be installed: \(error)", kind: .warning)
            }
        }
    }

    public enum InstallError: Error, CustomStringConvertible {
        case format, badName(String), download(String), notSupported(String), newerInstalled, noPython, tooLarge
        public var description: String {
            switch self {
            case .format: "Unknown search engine plugin file format."
            case .badName(let name): "'\(name)' is not a valid plugin name (letters, digits and _, not starting with _)"
            case .download(let why): "Failed to download the plugin file. \(why)"
            case .notSupported(let why): "Plugin is not supported. \(why)"
            case .newerInstalled: "A more recent version of this plugin is already installed."
            case .noPython: "Python must be installed to use the Search Engine."
            case .tooLarge: "the plugin file is over 1 MiB"
            }
        }
    }

    func install(source: String) async throws -> String {
        let url = URL(string: source)
        let scheme = url?.scheme?.lowercased() ?? ""
        let data: Data
        let fileName: String
        if scheme == "http" || scheme == "https" {
            guard let url else { throw InstallError.format }
            fileName = url.lastPathComponent
            data = try await download(url)
        } else {
            let path = scheme == "file" ? (url?.path ?? "") : source
            fileName = (path as NSString).lastPathComponent
            guard fileName.lowercased().hasSuffix(".py") else { throw InstallError.format }
            guard let contents = FileManager.default.contents(atPath: path) else { throw InstallError.download("no such file: \(path)") }
            data = contents
        }
        guard data.count <= Self.maxPluginSize else { throw InstallError.tooLarge }
        let name = String(fileName.split(separator: ".", maxSplits: 1).first ?? "")
        guard Self.validName(name) else { throw InstallError.badName(name) }
        guard let python = await python() else { throw InstallError.noPython }
        let version = Self.version(of: data)
        if let existing = plugins[name], existing.kind == .nova3,
           Self.compare(existing.version, version) != .orderedAscending { throw InstallError.newerInstalled }
        // Probe a copy first, then move the file into place: a bad plugin never replaces a good one.
        let info = try await probe(name: name, data: data, python: python)
        let engines = novaDirectory + "/engines"
        let final = engines + "/" + name + ".py"
        try data.write(to: URL(fileURLWithPath: final + ".tmp"))
        guard rename(final + ".tmp", final) == 0 else { throw InstallError.download("could not write \(final)") }  // atomic replace
        let record = SearchPluginRecord(name: name, kind: .nova3, enabled: plugins[name]?.enabled ?? true, version: version,
                                        fullName: info.name, url: info.url, categories: info.categories,
                                        source: scheme == "http" || scheme == "https" ? source : nil)
        try await store.searchPlugins.saveSearchPlugin(record)
        plugins[name] = record
        forkServer(for: python)?.prewarm()
        return name
    }

    struct ProbeInfo: Decodable { var name: String; var url: String; var categories: [String] }

    /// Imports the engine in a child process and reads its name, url and categories.
    func probe(name: String, data: Data, python: String) async throws -> ProbeInfo {
        let collected = Lines()
        // The probe imports `<name>`: give it the file under that name in a scratch folder of its own.
        let scratch = novaDirectory + "/probe-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: scratch + "/engines", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try data.write(to: URL(fileURLWithPath: scratch + "/engines/" + name + ".py"))
        for helper in ["novaprinter.py", "helpers.py", "qbtd_probe.py"] {
            try FileManager.default.copyItem(atPath: novaDirectory + "/" + helper, toPath: scratch + "/" + helper)
        }
        let run = NovaProcess(python: python, script: scratch + "/qbtd_probe.py", arguments: [name])
        let ending = await run.run(timeout: .seconds(30), maxOutput: 1 << 20) { lines in
            for line in lines { collected.add(String(line)) }
        }
        guard ending == .finished, let line = collected.all.last,
              let info = try? JSONDecoder().decode(ProbeInfo.self, from: Data(line.utf8)) else {
            if case .failed(let why) = ending { throw InstallError.notSupported(why) }
            throw InstallError.notSupported("it did not describe itself")
        }
        return ProbeInfo(name: info.name, url: info.url,
                         categories: info.categories.filter { SearchCategory.all.contains($0) }.sorted())
    }

    /// A plugin file from a URL, by the route `proxy_misc` chooses.
    /// Stops at the plugin size limit instead of reading a larger file first.
    func download(_ url: URL) async throws -> Data {
        do {
            return Data(try await HTTPFetch.get(url.absoluteString, route: settings.fetchRoute(for: .misc),
                                                timeout: 30, maxBytes: Self.maxPluginSize))
        } catch HTTPFetch.Failure.tooLarge {
            throw InstallError.tooLarge
        } catch {
            throw InstallError.download("\(error)")
        }
    }

    static let maxPluginSize = 1 << 20

    /// A Python module name that is safe as a file name and an argument: `[A-Za-z0-9_]`, not starting with `_`.
    static func validName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 100 && !name.hasPrefix("_")
            && name.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) && $0.isASCII || $0 == "_" }
    }

    /// `#VERSION: 1.2` from the file's header; "" when absent or not two numbers.
    static func version(of data: Data) -> String {
        for line in String(decoding: data.prefix(4096), as: UTF8.self).split(whereSeparator: \.isNewline) {
            let compact = line.replacingOccurrences(of: " ", with: "")
            guard compact.lowercased().hasPrefix("#version:") else { continue }
            let parts = compact.dropFirst(9).split(separator: ".")
            guard parts.count == 2, let major = Int(parts[0]), let minor = Int(parts[1]), major >= 0, minor >= 0,
                  major + minor > 0 else { return "" }
            return "\(major).\(minor)"
        }
        return ""
    }

    static func compare(_ a: String, _ b: String) -> ComparisonResult {
        let x = a.split(separator: ".").compactMap { Int($0) }, y = b.split(separator: ".").compactMap { Int($0) }
        for i in 0..<2 {
            let l = i < x.count ? x[i] : 0, r = i < y.count ? y[i] : 0
            if l != r { return l < r ? .orderedAscending : .orderedDescending }
        }
        return .orderedSame
    }

    /// Throws when SQLite refuses the change: nothing is uninstalled then (the rows go before the files).
    public func uninstall(names: [String]) async throws {
        let removable = names.filter { plugins[$0] != nil && plugins[$0]?.kind != .builtin }
        try await store.searchPlugins.deleteSearchPlugins(removable)
        for name in removable where plugins[name]?.kind == .nova3 && Self.validName(name) {
            try? FileManager.default.removeItem(atPath: novaDirectory + "/engines/" + name + ".py")
        }
        for name in removable {
            plugins[name] = nil
            log.add("Search plugin '\(name)' uninstalled", kind: .info)
        }
    }

    /// Throws when SQLite refuses the change, which then is not made.
    public func enable(names: [String], _ on: Bool) async throws {
        let known = names.filter { plugins[$0] != nil }
        try await store.searchPlugins.setSearchPluginsEnabled(known, on)
        for name in known { plugins[name]?.enabled = on }
    }

    /// Reinstalls plugins installed from a URL whose file there has a newer version.
    public func update() async {
        var updated = 0
        for plugin in plugins.values where plugin.kind == .nova3 {
            guard let source = plugin.source, let url = URL(string: source),
                  let data = try? await download(url),
                  Self.compare(plugin.version, Self.version(of: data)) == .orderedAscending else { continue }
            if (try? await install(source: source)) != nil { updated += 1 }
        }
        log.add(updated == 0 ? "All plugins are already up to date." : "Updated \(updated) search plugin(s)", kind: .info)
    }

    /// A Torznab indexer as a plugin (`qbtd/addTorznabIndexer`).
    public func addTorznab(name: String, url: String, apiKey: String, fullName: String?) async throws {
        guard Self.validName(name) else { throw InstallError.badName(name) }
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host != nil
        else { throw InstallError.download("not an http(s) URL: \(url)") }
        if let existing = plugins[name], existing.kind != .torznab { throw InstallError.newerInstalled }
        let record = SearchPluginRecord(name: name, kind: .torznab, enabled: plugins[name]?.enabled ?? true, version: "1.0",
                                        fullName: fullName ?? name, url: url, categories: Array(Torznab.categoryIDs.keys).sorted(),
                                        apiKey: apiKey)
        try await store.searchPlugins.saveSearchPlugin(record)
        plugins[name] = record
    }
}

/// Lines gathered from a reader thread.
final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    func add(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
