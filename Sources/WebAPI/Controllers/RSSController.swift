import Foundation
import HTTPKit
import QBTCore
import RSS

/// `/api/v2/rss/*`: qBittorrent's RSS group (`RSSController`), with its parameters, its 409 texts and its shapes per
/// profile (4.6 trims the parameters of its changes; 5.2 has per-feed refresh intervals).
public struct RSSController: APIController {
    public let scope = "rss"
    let rss: RSSService
    let identity: Identity

    public init(rss: RSSService, identity: Identity) {
        self.rss = rss
        self.identity = identity
    }

    var modern: Bool { identity.profile == .v5_2 }

    /// A required parameter, trimmed as 4.6 trims those of its changes.
    func text(_ p: Parameters, _ name: String) throws -> String {
        let value = try p.required(name)
        return identity.profile == .v4_6 ? value.trimmingCharacters(in: .whitespacesAndNewlines) : value
    }

    /// The tree and rule changes: their refusals (`RSSError`) answer 409 with qBittorrent's message.
    func change(_ work: () async throws -> Void) async throws -> APIReply {
        try await work()
        return .empty
    }

    public var actions: [String: APIAction] {
        var table: [String: APIAction] = [
            "addFolder": .post { p, _ in
                let path = try text(p, "path")
                return try await change { try await rss.addFolder(path) }
            },
            "addFeed": .post { p, _ in
                let url = try text(p, "url"), path = try text(p, "path")
                let interval = modern ? max(0, p.int("refreshInterval") ?? 0) : 0
                return try await change { try await rss.addFeed(url: url, path: path, refreshInterval: interval) }
            },
            "setFeedURL": .post { p, _ in
                let path = try text(p, "path"), url = try text(p, "url")
                return try await change { try await rss.setFeedURL(path: path, url: url) }
            },
            "removeItem": .post { p, _ in
                let path = try text(p, "path")
                return try await change { try await rss.removeItem(path) }
            },
            "moveItem": .post { p, _ in
                let item = try text(p, "itemPath"), destination = try text(p, "destPath")
                return try await change { try await rss.moveItem(item, to: destination) }
            },
            "items": .get { p, _ in
                .json(await rss.itemsJSON(withData: p.bool("withData") ?? false))
            },
            "markAsRead": .post { p, _ in
                let path = try p.required("itemPath")
                var found = true
                let reply = try await change { found = try await rss.markAsRead(itemPath: path, articleID: p["articleId"]) }
                return found ? reply : .done
            },
            "refreshItem": .post { p, _ in
                await rss.refresh(itemPath: try p.required("itemPath"))
                return .empty
            },
            "setRule": .post { p, _ in
                let name = try text(p, "ruleName"), definition = try text(p, "ruleDef")
                var object: [String: JSONValue] = [:]
                if case .object(let parsed)? = try? JSONDecoder().decode(JSONValue.self, from: Data(definition.utf8)) {
                    object = parsed
                }
                let ruleName = name.isEmpty ? (object["name"]?.stringValue ?? "") : name
                return try await change { try await rss.setRule(ruleName, DownloadRule(definition: object)) }
            },
            "renameRule": .post { p, _ in
                let name = try text(p, "ruleName"), newName = try text(p, "newRuleName")
                return try await change { try await rss.renameRule(name, to: newName) }
            },
            "removeRule": .post { p, _ in
                let name = try text(p, "ruleName")
                return try await change { try await rss.removeRule(name) }
            },
            "rules": .get { _, _ in
                .json(await rss.rulesJSON())
            },
            "matchingArticles": .get { p, _ in
                .json(await rss.matchingArticles(ruleName: try p.required("ruleName")))
            },
        ]
        if modern {
            // 5.2 takes it by GET too (it is not in its POST-only table).
            table["setFeedRefreshInterval"] = .get { p, _ in
                let path = try p.required("path"), raw = try p.required("refreshInterval")
                guard let seconds = Int(raw), seconds >= 0 else { throw QBitError.badParams("Invalid 'refreshInterval' value") }
                _ = try await change { try await rss.setFeedRefreshInterval(path: path, seconds: seconds) }
                return .done
            }
        }
        return table
    }
}
