import Foundation

/// qbtd's resumable uploads (tus 1.0.0 at `/api/v2/tus/`) and qBittorrent 5's torrent creator.
extension QBTClient {
    static let tusHeaders = ["Tus-Resumable": "1.0.0"]

    /// Creates an upload; returns its URL (e.g. `http://host:8080/api/v2/tus/ab12…`). `metadata`: filename, path, category, overwrite.
    public func tusCreate(length: Int64, metadata: [String: String]) async throws -> String {
        let encoded = metadata.sorted { $0.key < $1.key }.map { "\($0.key) \(Data($0.value.utf8).base64EncodedString())" }
        let response = try await raw("POST", "/api/v2/tus/", headers: Self.tusHeaders.merging([
            "Upload-Length": String(length), "Upload-Metadata": encoded.joined(separator: ","),
        ]) { $1 })
        try check(response, "create the upload")
        guard let location = response.headers["location"],
              let url = URL(string: location, relativeTo: baseURL)?.absoluteURL else {
            throw QBTClientError.badResponse("no Location for the new upload")
        }
        // Resolved as a browser would: behind a reverse proxy's sub-path the server names the whole path.
        return url.absoluteString
    }

    /// The server's offset of an upload, and where it landed once finished; nil when the upload is gone.
    public func tusStatus(_ location: String) async throws -> (offset: Int64, path: String?)? {
        let response = try await raw("HEAD", location, headers: Self.tusHeaders)
        if response.status == 404 || response.status == 410 { return nil }
        try check(response, "ask for the upload's offset")
        guard let offset = response.headers["upload-offset"].flatMap({ Int64($0) }) else {
            throw QBTClientError.badResponse("no Upload-Offset")
        }
        return (offset, response.headers["qbtd-upload-path"])
    }

    /// Sends one chunk at `offset`; returns the new offset and, when this finished the upload, where it landed.
    public func tusPatch(_ location: String, offset: Int64, chunk: Data) async throws -> (offset: Int64, path: String?) {
        let response = try await raw("PATCH", location, headers: Self.tusHeaders.merging([
            "Upload-Offset": String(offset), "Content-Type": "application/offset+octet-stream",
        ]) { $1 }, body: chunk)
        if response.status == 409 {
            throw QBTClientError.conflict("the server's offset moved on (another client?): run again with --resume")
        }
        try check(response, "send the data")
        guard let next = response.headers["upload-offset"].flatMap({ Int64($0) }) else {
            throw QBTClientError.badResponse("no Upload-Offset after PATCH")
        }
        return (next, response.headers["qbtd-upload-path"])
    }

    func check(_ response: Response, _ what: String) throws {
        _ = try checked(response, what) { status in
            switch status {
            case 404, 410: .notFound("the upload is gone (expired or removed): start it again without --resume")
            case 400, 413, 415: .badRequest("cannot \(what): " + Self.message(response, or: "refused"))
            case 507: .conflict("cannot \(what): " + Self.message(response, or: "not enough space on the server"))
            default: nil
            }
        }
    }

    /// `torrentcreator/addTask`: the task id.
    public func createTorrent(sourcePath: String, startSeeding: Bool, isPrivate: Bool = false,
                              trackers: [String] = [], comment: String? = nil) async throws -> String {
        struct Answer: Decodable { var taskID: String }
        var form: [(String, String)] = [("sourcePath", sourcePath), ("startSeeding", String(startSeeding)),
                                        ("private", String(isPrivate))]
        if !trackers.isEmpty { form.append(("trackers", trackers.joined(separator: "|"))) }
        if let comment { form.append(("comment", comment)) }
        do {
            return try await get(Answer.self, "torrentcreator/addTask", .form(form)).taskID
        } catch QBTClientError.notFound {
            throw QBTClientError.unsupported("this server has no torrent creator (qBittorrent 5 or qbtd)")
        }
    }

    /// A task of `torrentcreator/status`.
    public nonisolated func torrentTask(_ id: String) async throws -> [String: Any] {
        guard let tasks = try await json("torrentcreator/status", query: [("taskID", id)]) as? [[String: Any]], let task = tasks.first else {
            throw QBTClientError.notFound("no torrent creation task \(id)")
        }
        return task
    }

    public func torrentFile(_ id: String) async throws -> Data {
        try await call("torrentcreator/torrentFile", query: [("taskID", id)]).body
    }
}
