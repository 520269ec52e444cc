import Foundation

/// What `torrents/add` takes: sources and every option, named as qBittorrent names them.
public struct AddRequest: Sendable {
    public var urls: [String] = []
    public var files: [(name: String, data: Data)] = []
    public var savePath, downloadPath, category, tags, rename, cookie, contentLayout, stopCondition: String?
    public var stopped, skipChecking, sequential, firstLastPiecePrio, autoTMM, addToTop, rootFolder, useDownloadPath: Bool?
    public var upLimit, dlLimit: Int64?
    public var ratioLimit: Double?
    public var seedingTimeLimit, inactiveSeedingTimeLimit: Int?

    public init() {}

    func form(stopStart: Bool) -> MultipartForm {
        var form = MultipartForm()
        if !urls.isEmpty { form.field("urls", urls.joined(separator: "\n")) }
        for file in files { form.file("torrents", filename: file.name, data: file.data) }
        let text: [(String, String?)] = [
            ("savepath", savePath), ("downloadPath", downloadPath), ("category", category), ("tags", tags),
            ("rename", rename), ("cookie", cookie), ("contentLayout", contentLayout), ("stopCondition", stopCondition),
            (stopStart ? "stopped" : "paused", stopped.map(String.init)), ("skip_checking", skipChecking.map(String.init)),
            ("sequentialDownload", sequential.map(String.init)), ("firstLastPiecePrio", firstLastPiecePrio.map(String.init)),
            ("autoTMM", autoTMM.map(String.init)), ("addToTopOfQueue", addToTop.map(String.init)),
            ("root_folder", rootFolder.map(String.init)), ("useDownloadPath", useDownloadPath.map(String.init)),
            ("upLimit", upLimit.map { String($0) }), ("dlLimit", dlLimit.map { String($0) }),
            ("ratioLimit", ratioLimit.map { String($0) }), ("seedingTimeLimit", seedingTimeLimit.map(String.init)),
            ("inactiveSeedingTimeLimit", inactiveSeedingTimeLimit.map(String.init)),
        ]
        for case let (name, value?) in text { form.field(name, value) }
        return form.finished()
    }
}

/// `torrents/info` filters.
public struct TorrentQuery: Sendable {
    public var filter, category, tag, sort: String?
    public var reverse = false
    public var hashes: [String] = []
    public var limit: Int?

    public init(filter: String? = nil, category: String? = nil, tag: String? = nil, sort: String? = nil,
                reverse: Bool = false, hashes: [String] = [], limit: Int? = nil) {
        self.filter = filter; self.category = category; self.tag = tag; self.sort = sort
        self.reverse = reverse; self.hashes = hashes; self.limit = limit
    }

    var items: [(String, String)] {
        var q: [(String, String)] = []
        if let filter { q.append(("filter", filter)) }
        if let category { q.append(("category", category)) }
        if let tag { q.append(("tag", tag)) }
        if let sort { q.append(("sort", sort)) }
        if reverse { q.append(("reverse", "true")) }
        if !hashes.isEmpty { q.append(("hashes", hashes.joined(separator: "|"))) }
        if let limit { q.append(("limit", String(limit))) }
        return q
    }
}

extension QBTClient {
    public func torrents(_ query: TorrentQuery = TorrentQuery()) async throws -> [Torrent] {
        try await get([Torrent].self, "torrents/info", query: query.items)
    }

    public nonisolated func torrentsJSON(_ query: TorrentQuery = TorrentQuery()) async throws -> Any {
        try await json("torrents/info", query: query.items)
    }

    /// `torrents/add`: qBittorrent answers `Ok.`, or `Fails.` when nothing could be added.
    public func add(_ request: AddRequest) async throws {
        guard !request.urls.isEmpty || !request.files.isEmpty else { throw QBTClientError.invalidInput("nothing to add") }
        let refused = { (text: String) in
            QBTClientError.badRequest("the server could not add it: "
                                      + (text.isEmpty || text == "Fails." ? "not a valid torrent file, magnet link or URL" : text))
        }
        let response = try checked(try await send("torrents/add", .multipart(request.form(stopStart: try await speaksStopStart()))),
                                   "torrents/add") { [400, 415].contains($0) ? refused("") : nil }
        if response.text == "Fails." { throw refused(response.text) }
    }

    /// The whole of `torrents/properties` for one torrent (404 when the hash is unknown).
    public nonisolated func properties(_ hash: String) async throws -> [String: Any] {
        guard let object = try await json("torrents/properties", query: [("hash", hash)]) as? [String: Any] else {
            throw QBTClientError.badResponse("torrents/properties is not an object")
        }
        return object
    }

    public func files(_ hash: String) async throws -> [TorrentFile] {
        var files = try await get([TorrentFile].self, "torrents/files", query: [("hash", hash)])
        for i in files.indices where files[i].index < 0 { files[i].index = i }  // 4.x before 2.8.2 had no index
        return files
    }

    public func trackers(_ hash: String) async throws -> [Tracker] {
        try await get([Tracker].self, "torrents/trackers", query: [("hash", hash)])
    }

    public func peers(_ hash: String) async throws -> [String: Peer] {
        struct Answer: Decodable { var peers: [String: Peer]? }
        return try await get(Answer.self, "sync/torrentPeers", query: [("hash", hash)]).peers ?? [:]
    }

    /// Pause/stop or resume/start, in the server's own dialect.
    public func setRunning(_ running: Bool, hashes: [String]) async throws {
        let modern = try await speaksStopStart()
        let action = running ? (modern ? "start" : "resume") : (modern ? "stop" : "pause")
        try await call("torrents/\(action)", .form([("hashes", hashes.joined(separator: "|"))]))
    }

    public func delete(hashes: [String], deleteFiles: Bool) async throws {
        try await call("torrents/delete", .form([("hashes", hashes.joined(separator: "|")), ("deleteFiles", String(deleteFiles))]))
    }

    /// Any `torrents/ACTION` that takes `hashes` and form fields, answering nothing of interest.
    public func torrentsAction(_ action: String, hashes: [String], _ fields: [(String, String)] = []) async throws {
        try await call("torrents/\(action)", .form([("hashes", hashes.joined(separator: "|"))] + fields))
    }

    public func filePriority(_ hash: String, ids: [Int], priority: Int) async throws {
        try await call("torrents/filePrio", .form([("hash", hash), ("id", ids.map(String.init).joined(separator: "|")),
                                                  ("priority", String(priority))]))
    }

    public func categories() async throws -> [String: Category] {
        try await get([String: Category].self, "torrents/categories")
    }

    public func tags() async throws -> [String] { try await get([String].self, "torrents/tags") }

    /// `sync/maindata` from `rid` (0: everything).
    public nonisolated func maindata(rid: Int) async throws -> [String: Any] {
        guard let object = try await json("sync/maindata", query: [("rid", String(rid))]) as? [String: Any] else {
            throw QBTClientError.badResponse("sync/maindata is not an object")
        }
        return object
    }

    /// Full hashes for what a person typed: whole hashes, `all`, or unique prefixes of known hashes.
    public func resolve(_ given: [String]) async throws -> [String] {
        if given == ["all"] { return ["all"] }
        return try await resolveTorrents(given).map(\.hash)
    }

    /// The torrents a person named (hashes, unique prefixes, or `all`), from one `torrents/info`.
    public func resolveTorrents(_ given: [String]) async throws -> [Torrent] {
        for raw in given where raw != "all" {
            guard !raw.isEmpty, raw.allSatisfy(\.isHexDigit) else {
                throw QBTClientError.invalidInput("not a torrent hash: \(raw) (give a hash, a unique prefix of one, or `all`)")
            }
        }
        let known = try await torrents()
        if given == ["all"] { return known }
        return try given.map { raw in
            let matches = known.filter { $0.hash.hasPrefix(raw.lowercased()) }
            switch matches.count {
            case 1: return matches[0]
            case 0: throw QBTClientError.notFound("no torrent with hash \(raw): see `qbt list`")
            default: throw QBTClientError.invalidInput("\(raw) matches \(matches.count) torrents: give more of the hash")
            }
        }
    }
}
