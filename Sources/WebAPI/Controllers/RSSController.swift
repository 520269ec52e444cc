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

    var modern: Bool { identity.profile >= .v5_2 }

    /// A required parameter, trimmed as 4.6 trims those of its changes.
    func text(_ p: Parameters, _ name: String) throws -> String {
        let value = try p.required(name)
        return identity.profile == .v4_6 ? value.trimmingCharacters(in: .whitespacesAndNewlines) : value
    }

    public var actions: [String: APIAction] {
        var table: [String: APIAction] = [
            "addFolder": .post { p, _ in
                let path = try text(p, "path")
                try await rss.addFolder(path)
                return .empty
            },
            "addFeed": .post { p, _ in
                let url = try text(p, "url"), path = try text(p, "path")
                let interval = modern ? max(0, p.int("refreshInterval") ?? 0) : 0
                try await rss.addFeed(url: url, path: path, refreshInterval: interval)
                return .empty
            },
            "setFeedURL": .post { p, _ in
                let path = try text(p, "path"), url = try text(p, "url")
                try await rss.setFeedURL(path: path, url: url)
                return .empty
            },
            "removeItem": .post { p, _ in
                let path = try text(p, "path")
                try await rss.removeItem(path)
                return .empty
            },
            "moveItem": .post { p, _ in
                let item = try text(p, "itemPath"), destination = try text(p, "destPath")
                try await rss.moveItem(item, to: destination)
                return .empty
            },
            "items": .get { p, _ in
                .json(await rss.itemsJSON(withData: p.bool("withData") ?? false))
            },
            "markAsRead": .post { p, _ in
                let path = try p.required("itemPath")
                let found = try await rss.markAsRead(itemPath: path, articleID: p["articleId"])
                return found ? .empty : .done
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
                try await rss.setRule(ruleName, DownloadRule(definition: object))
                return .empty
            },
            "renameRule": .post { p, _ in
                let name = try text(p, "ruleName"), newName = try text(p, "newRuleName")
                try await rss.renameRule(name, to: newName)
                return .empty
            },
            "cloneRule": .post { p, _ in
                try p.require("sourceName", "cloneName")
                let name = try text(p, "sourceName"), cloneName = try text(p, "cloneName")
                try await rss.cloneRule(name, as: cloneName)
                return .empty
            }.since(.v5_3),
            "removeRule": .post { p, _ in
                let name = try text(p, "ruleName")
                try await rss.removeRule(name)
                return .empty
            },
            "rules": .get { _, _ in
                .json(await rss.rulesJSON())
            },
            // 5.3: every rule as a file (Qt's indented JSON), and rules read back from one.
            "exportRules": .get { _, _ in
                .binary(await rss.rulesJSON().indented(), contentType: "application/json", filename: "rss-downloader-rules.json")
            }.since(.v5_3),
            "importRules": .post { p, _ in
                guard p.files.count == 1, let file = p.files.first else {
                    throw QBitError.badParams("Exactly one rules file is required")
                }
                guard let parsed = try? JSONDecoder().decode(JSONValue.self, from: Data(file.data)) else {
                    throw QBitError.badParams("illegal value")  // Qt's text for a file that is not JSON
                }
                guard case .object(let rules) = parsed else { throw QBitError.badParams("Invalid data format.") }
                for (name, definition) in rules.sorted(by: { $0.key < $1.key }) {
                    try await rss.setRule(name, DownloadRule(definition: definition.objectValue ?? [:]))
                }
                return .done
            }.since(.v5_3),
            "matchingArticles": .get { p, _ in
                .json(await rss.matchingArticles(ruleName: try p.required("ruleName")))
            },
        ]
        if modern {
            // 5.2 takes it by GET too (it is not in its POST-only table); 5.3 by POST only.
            table["setFeedRefreshInterval"] = APIAction(methods: identity.profile >= .v5_3 ? .postOnly : .getOrPost, isPublic: false) { p, _ in
                let path = try p.required("path"), raw = try p.required("refreshInterval")
                guard let seconds = Int(raw), seconds >= 0 else { throw QBitError.badParams("Invalid 'refreshInterval' value") }
                try await rss.setFeedRefreshInterval(path: path, seconds: seconds)
                return .done
            }
        }
        return table
    }
}
