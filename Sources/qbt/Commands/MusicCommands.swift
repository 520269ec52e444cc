import ArgumentParser
import Foundation
import GRDB
import QBTClient

struct Music: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The server's MP3 library: browse it, download tracks for offline play, manage the key.",
        discussion: """
            `qbt music sync` downloads the library database; tracks, albums and search read that copy. \
            `qbt music download` saves a track (or an album, a playlist) as HLS with its key, playable with no network.
            """,
        subcommands: [Key.self, Sync.self, Tracks.self, Albums.self, SearchLibrary.self, Download.self, Downloads.self])

    /// A client holding the API key `/music` takes: QBT_API_KEY, the saved server's key, or the one `qbt music key` saved.
    static func client(_ global: GlobalOptions) async throws -> (QBTClient, String) {
        let server = try global.server()
        let env = ProcessInfo.processInfo.environment
        guard let key = env["QBT_API_KEY"].flatMap({ $0.isEmpty ? nil : $0 }) ?? server.saved.flatMap(savedKey) else {
            throw QBTClientError.notLoggedIn(server: nil).withMessage("no API key for /music: run `qbt music key` (or set QBT_API_KEY)")
        }
        let id = (server.base.host ?? "server") + "-" + String(server.base.port ?? 80)
        return (QBTClient(baseURL: server.base, credential: .apiKey(key), caFile: global.caFile(server.saved)), id)
    }

    /// The key `qbt music key` saved last, else the login's own API key.
    static func savedKey(_ saved: Config.Server) -> String? {
        if let key = saved.musicKey { return key }
        if case .apiKey(let key) = saved.credential { return key }
        return nil
    }

    /// Where qbt keeps what it downloads: `$XDG_DATA_HOME/qbt/music` (or `$QBT_MUSIC_DIR`).
    static var dataDirectory: URL {
        let env = ProcessInfo.processInfo.environment
        if let dir = env["QBT_MUSIC_DIR"], !dir.isEmpty { return URL(fileURLWithPath: dir) }
        let base = env["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (FileManager.default.homeDirectoryForCurrentUser.path + "/.local/share")
        return URL(fileURLWithPath: base).appendingPathComponent("qbt/music")
    }

    static func get(_ client: QBTClient, _ path: String, headers: [String: String] = [:]) async throws -> QBTClient.Response {
        let response = try await client.raw("GET", path, headers: headers)
        if response.status == 304 { return response }  // the library database has not changed
        return try await client.checked(response, path) { status in
            status == 401 ? QBTClientError.forbidden(url: client.baseURL.absoluteString).withMessage("the server refused the music key: run `qbt music key`") : nil
        }
    }

    struct Key: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a new API key for the library, scoped to /music (the previous one stops working), and save it.")
        @OptionGroup var global: GlobalOptions
        static let keyName = "music"
        func run() async throws {
            let client = try await global.client()
            // A player's key reaches the library only: a lost phone cannot add torrents or change settings.
            let previous = try await client.apiKeys().filter { $0.name == Self.keyName }
            let (_, key) = try await client.createAPIKey(name: Self.keyName, scope: "music")
            for old in previous { try await client.revokeAPIKey(id: old.id) }
            if let name = try global.server().name {
                var config = try Config.load()
                let replaced = config.servers[name]?.musicKey
                config.servers[name]?.musicKey = key
                // Logged in with the key just revoked: the new one replaces it there too, or qbt is logged out.
                if case .apiKey(let login) = config.servers[name]?.credential, login == replaced {
                    config.servers[name]?.credential = .apiKey(key)
                }
                try config.save()
            }
            if global.json { return Output.printJSON(["apiKey": key]) }
            print(key)
            Output.note("Saved for `qbt music`; players take it as `Authorization: Bearer <key>` or `?api_key=<key>`. It reaches /music only.")
        }
    }

    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Download the library database (only when it changed).")
        @OptionGroup var global: GlobalOptions
        func run() async throws {
            let (client, id) = try await Music.client(global)
            let (path, version, fresh) = try await Music.sync(client, id)
            if global.json { return Output.printJSON(["path": path.path, "version": version, "downloaded": fresh]) }
            print(fresh ? "Library version \(version) saved to \(path.path)." : "Library version \(version) is current.")
        }
    }

    /// The library copy, fetched with If-None-Match so an unchanged library costs one 304.
    static func sync(_ client: QBTClient, _ id: String) async throws -> (URL, String, Bool) {
        let dir = dataDirectory.appendingPathComponent(id)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let db = dir.appendingPathComponent("library.sqlite"), etagFile = dir.appendingPathComponent("library.etag")
        let etag = (try? String(contentsOf: etagFile, encoding: .utf8)).flatMap { FileManager.default.fileExists(atPath: db.path) ? $0 : nil }
        let response = try await get(client, "/music/db", headers: etag.map { ["If-None-Match": $0] } ?? [:])
        let version = (response.headers["etag"] ?? etag ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        if response.status == 304 { return (db, version, false) }
        try response.body.write(to: db, options: .atomic)
        try (response.headers["etag"] ?? "").write(to: etagFile, atomically: true, encoding: .utf8)
        return (db, version, true)
    }

    static func library(_ global: GlobalOptions) async throws -> DatabaseQueue {
        let (client, id) = try await Music.client(global)
        let (path, _, _) = try await sync(client, id)
        var config = Configuration()
        config.readonly = true
        return try DatabaseQueue(path: path.path, configuration: config)
    }

    static func rows(_ db: DatabaseQueue, _ sql: String, _ arguments: StatementArguments = []) throws -> [[String: Any]] {
        try db.read { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                var out: [String: Any] = [:]
                for (column, value) in row { out[column] = value.storage.value ?? NSNull() }
                return out
            }
        }
    }

    static let trackColumns = "id, title, artist, album, track_number, disc_number, duration, error"

    static func printTracks(_ rows: [[String: Any]], json: Bool) {
        if json { return Output.printJSON(rows) }
        if rows.isEmpty { return Output.note("No tracks.") }
        print(Output.table(["ID", "#", "TITLE", "ARTIST", "ALBUM", "TIME"], rows.map { r in
            let seconds = Int64((r["duration"] as? Double) ?? 0)
            return [String(describing: r["id"]!), (r["track_number"] as? Int64).map(String.init) ?? "",
                    (r["error"] is String) ? "(not playable)" : r["title"] as? String ?? "", r["artist"] as? String ?? "",
                    r["album"] as? String ?? "", String(format: "%d:%02d", seconds / 60, seconds % 60)]
        }, flex: 2, rightAligned: [0, 1, 5]))
    }

    struct Tracks: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List tracks (of an album, or of a playlist).")
        @OptionGroup var global: GlobalOptions
        @Option(help: "Only this album's tracks.") var album: Int64?
        @Option(help: "Only this playlist's tracks, in its order.") var playlist: Int64?
        func run() async throws {
            let db = try await Music.library(global)
            let rows: [[String: Any]]
            if let playlist {
                rows = try Music.rows(db, "SELECT \(Music.trackColumns.split(separator: ",").map { "t." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", ")) FROM playlist_items p JOIN tracks t ON t.id = p.track_id WHERE p.playlist_id = ? ORDER BY p.position", [playlist])
            } else if let album {
                rows = try Music.rows(db, "SELECT \(Music.trackColumns) FROM tracks WHERE album_id = ? ORDER BY disc_number, track_number, title", [album])
            } else {
                rows = try Music.rows(db, "SELECT \(Music.trackColumns) FROM tracks ORDER BY artist, album, disc_number, track_number, title")
            }
            Music.printTracks(rows, json: global.json)
        }
    }

    struct Albums: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List albums.")
        @OptionGroup var global: GlobalOptions
        func run() async throws {
            let db = try await Music.library(global)
            let rows = try Music.rows(db, "SELECT a.id, a.title, a.album_artist, a.year, (SELECT COUNT(*) FROM tracks t WHERE t.album_id = a.id) AS tracks FROM albums a ORDER BY a.album_artist, a.title")
            if global.json { return Output.printJSON(rows) }
            if rows.isEmpty { return Output.note("No albums.") }
            print(Output.table(["ID", "ALBUM", "ARTIST", "YEAR", "TRACKS"], rows.map {
                [String(describing: $0["id"]!), $0["title"] as? String ?? "", $0["album_artist"] as? String ?? "",
                 $0["year"] as? String ?? "", String(describing: $0["tracks"]!)]
            }, flex: 1, rightAligned: [0, 4]))
        }
    }

    struct SearchLibrary: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "search", abstract: "Find tracks by title, artist or album.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Words to look for.") var words: [String]
        func run() async throws {
            let db = try await Music.library(global)
            let pattern = "%" + words.joined(separator: " ").replacingOccurrences(of: "%", with: "") + "%"
            let rows = try Music.rows(db, "SELECT \(Music.trackColumns) FROM tracks WHERE title LIKE ?1 OR artist LIKE ?1 OR album LIKE ?1 ORDER BY artist, album, track_number", [pattern])
            Music.printTracks(rows, json: global.json)
        }
    }
}

extension QBTClientError {
    /// The same kind of error (and exit code), with a message for this place.
    func withMessage(_ message: String) -> QBTClientError {
        switch self {
        case .notLoggedIn, .forbidden, .loginFailed, .banned: .invalidCredentials(message)
        default: .badRequest(message)
        }
    }
}
