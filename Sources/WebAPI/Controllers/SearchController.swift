import Foundation
import HTTPKit
import QBTCore
import Search
import TorrentEngine

/// `/api/v2/search/*`: jobs of the client's session (as qBittorrent keeps them per session) and plugins.
public struct SearchController: APIController {
    public let scope = "search"
    let search: SearchService
    let service: TorrentService
    let settings: ServerSettings
    let identity: Identity
    let fetcher: TorrentFetcher

    public init(search: SearchService, service: TorrentService, settings: ServerSettings, identity: Identity, fetcher: TorrentFetcher = TorrentFetcher()) {
        self.search = search
        self.service = service
        self.settings = settings
        self.identity = identity
        self.fetcher = fetcher
    }

    public var actions: [String: APIAction] {
        var table: [String: APIAction] = [
            "start": .post { p, caller in
                try p.require("pattern", "category", "plugins")
                let pattern = try p.required("pattern").trimmingCharacters(in: .whitespaces)
                let category = try p.required("category").trimmingCharacters(in: .whitespaces)
                let plugins = try p.required("plugins")
                let id = try await search.start(owner: Self.owner(caller), pattern: pattern, category: category, plugins: plugins)
                return .json(.object(["id": .int(Int64(id))]))
            },
            "stop": .post { p, caller in
                try await search.stop(owner: Self.owner(caller), id: Self.id(try p.required("id")))
                return .empty
            },
            "delete": .post { p, caller in
                try await search.delete(owner: Self.owner(caller), id: Self.id(try p.required("id")))
                return .empty
            },
            "status": .get { p, caller in
                let jobs = try await search.status(owner: Self.owner(caller), id: Self.id(p["id"] ?? ""))
                return .json(.array(jobs.map { job in
                    var o: [String: JSONValue] = ["id": .int(Int64(job.id)), "status": .string(job.isRunning ? "Running" : "Stopped"),
                                                  "total": .int(Int64(job.total))]
                    if identity.profile >= .v5_3 {  // 5.3 (WebAPI 2.16.1) says what was asked
                        o["pattern"] = .string(job.pattern)
                        o["category"] = .string(job.category)
                        o["plugins"] = .array(job.plugins.map { .string($0) })
                    }
                    return .object(o)
                }))
            },
            "results": .get { p, caller in
                let id = Self.id(try p.required("id"))
                let page = try await search.results(owner: Self.owner(caller), id: id, limit: Int(p["limit"] ?? "") ?? 0,
                                                    offset: Int(p["offset"] ?? "") ?? 0)
                return .json(.object([
                    "results": .array(page.results.map(json)), "status": .string(page.running ? "Running" : "Stopped"),
                    "total": .int(Int64(page.total)),
                ]))
            },
            "plugins": .get { _, _ in .json(.array(await search.pluginList.map { Self.json($0, identity) })) },
            "installPlugin": .post { p, _ in
                await search.install(sources: try p.required("sources").split(separator: "|").map(String.init))
                return .empty
            },
            "uninstallPlugin": .post { p, _ in
                try await search.uninstall(names: Self.names(try p.required("names")))
                return .empty
            },
            "enablePlugin": .post { p, _ in
                let names = Self.names(try p.required("names"))
                try await search.enable(names: names, (try p.required("enable")).lowercased() == "true")
                return .empty
            },
            "updatePlugins": .post { _, _ in
                await search.update()
                return .empty
            },
        ]
        if identity.profile != .v4_6 {
            // 5.0: a magnet is added as is; otherwise the .torrent is fetched (qbtd does not run nova2dl.py).
            // 5.3 takes it by POST only.
            table["downloadTorrent"] = APIAction(methods: identity.profile >= .v5_3 ? .postOnly : .getOrPost, isPublic: false) { p, _ in
                let url = try p.required("torrentUrl")
                _ = try p.required("pluginName")
                if let source = await fetcher.source(for: url, route: settings.fetchRoute(for: .misc)) { _ = await service.add(source, options: AddOptions()) }
                return .empty
            }
        }
        return table
    }

    /// Jobs belong to the caller's session (or API key), as qBittorrent's controller belongs to its session.
    static func owner(_ caller: APICaller) -> String {
        caller.sessionID.map { "session:" + $0 } ?? caller.apiKeyID.map { "key:" + $0 } ?? "ip:" + caller.clientIP
    }

    /// Qt's `toInt`: not a number reads as 0 (no such job).
    static func id(_ text: String) -> Int { Int(text.trimmingCharacters(in: .whitespaces)) ?? 0 }

    static func names(_ text: String) -> [String] {
        text.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    func json(_ r: SearchResult) -> JSONValue {
        var o: [String: JSONValue] = [
            "fileName": .string(r.fileName), "fileUrl": .string(r.fileURL), "fileSize": .int(r.fileSize),
            "nbSeeders": .int(r.seeders < 0 ? -1 : r.seeders), "nbLeechers": .int(r.leechers < 0 ? -1 : r.leechers),
            "siteUrl": .string(r.siteURL), "descrLink": .string(r.descriptionLink),
        ]
        if identity.profile != .v4_6 {  // 5.0 added them
            o["engineName"] = .string(r.engineName)
            o["pubDate"] = .int(r.pubDate)
        }
        return .object(o)
    }

    /// 5.3 writes a plugin's version without a trailing `.0` ("1.0" is "1"), as its version type prints it.
    static func json(_ p: SearchService.PluginInfo, _ identity: Identity) -> JSONValue {
        let version = identity.profile >= .v5_3 && p.version.hasSuffix(".0") ? String(p.version.dropLast(2)) : p.version
        let categories = [JSONValue.object(["id": .string("all"), "name": .string("All categories")])]
            + p.record.categories.sorted { $0.lowercased() < $1.lowercased() }.map {
                .object(["id": .string($0), "name": .string(SearchCategory.names[$0] ?? "")])
            }
        return .object([
            "name": .string(p.record.name), "version": .string(version), "fullName": .string(p.record.fullName),
            "url": .string(p.record.url), "supportedCategories": .array(categories), "enabled": .bool(p.record.enabled),
        ])
    }
}
