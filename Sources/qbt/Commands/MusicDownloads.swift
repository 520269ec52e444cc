import ArgumentParser
import Foundation
import GRDB
import QBTClient

/// Offline copies: each track saved as its playlist (rewritten to local files), its segments and its key.
/// Their states live in `downloads.json` beside the library copy, so another `qbt` can pause or cancel them.
struct DownloadBook: Codable {
    struct Entry: Codable {
        var id: String
        var title: String
        var folder: String
        var tracks: [Int64]
        /// waiting, running, paused, completed, failed, cancelled
        var state: String
        var done: Int
        var total: Int
        var error: String?
    }

    var entries: [String: Entry] = [:]

    static var path: URL { Music.dataDirectory.appendingPathComponent("downloads.json") }

    static func load() -> DownloadBook {
        guard let data = try? Data(contentsOf: path) else { return DownloadBook() }
        return (try? JSONDecoder().decode(DownloadBook.self, from: data)) ?? DownloadBook()
    }

    func save() throws { try writePrivately(try JSONEncoder().encode(self), to: Self.path) }

    /// Re-reads the book, changes one entry, writes it back (another qbt may have paused or cancelled it meanwhile).
    @discardableResult
    static func update(_ id: String, _ change: (inout Entry) -> Void) throws -> Entry? {
        var book = load()
        guard var entry = book.entries[id] else { return nil }
        change(&entry)
        book.entries[id] = entry
        try book.save()
        return entry
    }
}

extension Music {
    struct Download: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Save tracks for offline play: a track, an album (--album) or a playlist (--playlist).",
            discussion: "Each track becomes a folder with stream.m3u8, its segments and its key, playable with `ffmpeg -allowed_extensions ALL -i stream.m3u8` or any HLS player, with no network. Ctrl-C pauses it; `qbt music downloads pause|resume|cancel ID` controls it from elsewhere.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Track ids.") var tracks: [Int64] = []
        @Option(help: "An album id.") var album: Int64?
        @Option(help: "A playlist id.") var playlist: Int64?
        @Option(help: ArgumentHelp("Where to save (default: ~/.local/share/qbt/music/downloads).", valueName: "dir")) var dir: String?

        func validate() throws {
            if tracks.isEmpty == (album == nil && playlist == nil) || (album != nil && playlist != nil) {
                throw ValidationError("give track ids, or --album ID, or --playlist ID")
            }
        }

        func run() async throws {
            let db = try await Music.library(global)
            let (ids, title, key): ([Int64], String, String)
            if let album {
                let rows = try Music.rows(db, "SELECT id FROM tracks WHERE album_id = ? AND error IS NULL ORDER BY disc_number, track_number", [album])
                let name = try Music.rows(db, "SELECT title FROM albums WHERE id = ?", [album]).first?["title"] as? String
                guard let name, !rows.isEmpty else { throw QBTClientError.notFound("no album \(album) with playable tracks: see `qbt music albums`") }
                (ids, title, key) = (rows.compactMap { $0["id"] as? Int64 }, name, "album-\(album)")
            } else if let playlist {
                let rows = try Music.rows(db, "SELECT track_id FROM playlist_items WHERE playlist_id = ? ORDER BY position", [playlist])
                let name = try Music.rows(db, "SELECT name FROM playlists WHERE id = ?", [playlist]).first?["name"] as? String
                guard let name, !rows.isEmpty else { throw QBTClientError.notFound("no playlist \(playlist) with tracks") }
                (ids, title, key) = (rows.compactMap { $0["track_id"] as? Int64 }, name, "playlist-\(playlist)")
            } else {
                for id in tracks where try Music.rows(db, "SELECT id FROM tracks WHERE id = ?", [id]).isEmpty {
                    throw QBTClientError.notFound("no track \(id): see `qbt music tracks`")
                }
                let name = tracks.count == 1 ? (try Music.rows(db, "SELECT title FROM tracks WHERE id = ?", [tracks[0]]).first?["title"] as? String ?? "") : "\(tracks.count) tracks"
                (ids, title, key) = (tracks, name, "tracks-" + tracks.map(String.init).joined(separator: "-"))
            }
            let folder = URL(fileURLWithPath: dir ?? Music.dataDirectory.appendingPathComponent("downloads").path).appendingPathComponent(key)
            var book = DownloadBook.load()
            book.entries[key] = DownloadBook.Entry(id: key, title: title, folder: folder.path, tracks: ids, state: "waiting",
                                                   done: 0, total: 0, error: nil)
            try book.save()
            let (client, _) = try await Music.client(global)
            let entry = try await Music.runDownload(key, client: client)
            if global.json { return Output.printJSON(["id": entry.id, "state": entry.state, "folder": entry.folder, "segments": entry.done]) }
            print("\(entry.state == "completed" ? "Saved" : entry.state.capitalized) \(title) in \(entry.folder) (\(entry.done)/\(entry.total) segments).")
        }
    }

    /// Downloads (or continues) a book entry, track by track, segment by segment; stops when it is paused or
    /// cancelled from elsewhere. Segments already on disk are kept.
    static func runDownload(_ id: String, client: QBTClient) async throws -> DownloadBook.Entry {
        guard var entry = try DownloadBook.update(id, { $0.state = "running"; $0.error = nil }) else {
            throw QBTClientError.notFound("no download \(id): see `qbt music downloads`")
        }
        // Every track's playlist first, so the bar knows the whole.
        var plans: [(Int64, [String], String?, String)] = []
        do {
            for track in entry.tracks {
                let text = String(decoding: try await get(client, "/music/tracks/\(track)/stream.m3u8").body, as: UTF8.self)
                let lines = text.split(separator: "\n").map(String.init)
                let segments = lines.filter { !$0.hasPrefix("#") && !$0.isEmpty }
                let keyURI = lines.first { $0.hasPrefix("#EXT-X-KEY") }.flatMap { line -> String? in
                    guard let r = line.range(of: "URI=\"") else { return nil }
                    return String(line[r.upperBound...].prefix { $0 != "\"" })
                }
                plans.append((track, segments, keyURI, text))
            }
        } catch {
            try DownloadBook.update(id) { $0.state = "failed"; $0.error = "\(error)" }
            throw error
        }
        let total = plans.reduce(0) { $0 + $1.1.count }
        entry = try DownloadBook.update(id) { $0.total = total } ?? entry
        var bar = ProgressBar("saving")
        var done = 0
        // Ctrl-C pauses: the segment under way finishes, and `qbt music downloads resume` continues.
        let interrupted = Interrupt.arm()
        for (track, segments, keyURI, text) in plans {
            let folder = URL(fileURLWithPath: entry.folder).appendingPathComponent(entry.tracks.count == 1 ? "" : String(track))
            let segmentDir = folder.appendingPathComponent("segments")
            try FileManager.default.createDirectory(at: segmentDir, withIntermediateDirectories: true)
            if let keyURI {
                let key = try await get(client, "/music/tracks/\(track)/" + keyURI.split(separator: "?")[0]).body
                try key.write(to: folder.appendingPathComponent("key.bin"), options: .atomic)
            }
            for (n, uri) in segments.enumerated() {
                // One read and write of the book per segment: progress recorded, and a pause or cancel seen (another
                // qbt may have asked for one).
                let now = try DownloadBook.update(id) { entry in
                    entry.done = done
                    if interrupted.fired { entry.state = "paused" }
                }
                guard let now, now.state != "paused", now.state != "cancelled" else {
                    bar.finish()
                    if now?.state == "cancelled" { try? FileManager.default.removeItem(atPath: entry.folder) }
                    return now ?? entry  // a book without the entry: stop, and leave the files alone
                }
                let file = segmentDir.appendingPathComponent("\(n).mp3")
                if (try? file.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0) ?? 0 == 0 {
                    do {
                        let bytes = try await get(client, "/music/tracks/\(track)/" + uri.split(separator: "?")[0]).body
                        try bytes.write(to: file, options: .atomic)
                    } catch {
                        bar.finish()
                        // Cancelled meanwhile: `cancel` removed the folder under this write, which is not a failure.
                        if let cancelled = DownloadBook.load().entries[id], cancelled.state == "cancelled" {
                            try? FileManager.default.removeItem(atPath: entry.folder)
                            return cancelled
                        }
                        try DownloadBook.update(id) { $0.state = "failed"; $0.error = "\(error)" }
                        throw error
                    }
                }
                done += 1
                bar.update(Double(done) / Double(max(total, 1)), detail: "\(done)/\(total) segments")
            }
            // Local URIs only: segments/N.mp3 and key.bin, nothing of the server or its key.
            let local = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
                if line.hasPrefix("#EXT-X-KEY") { return "#EXT-X-KEY:METHOD=AES-128,URI=\"key.bin\"" }
                if !line.hasPrefix("#"), !line.isEmpty { return String(line.split(separator: "?")[0]) }
                return String(line)
            }.joined(separator: "\n")
            try local.write(to: folder.appendingPathComponent("stream.m3u8"), atomically: true, encoding: .utf8)
        }
        bar.finish()
        return try DownloadBook.update(id) { $0.state = "completed"; $0.done = done } ?? entry
    }

    struct Downloads: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List offline downloads and their states; pause, resume or cancel one.",
            subcommands: [ListDownloads.self, Pause.self, Resume.self, Cancel.self], defaultSubcommand: ListDownloads.self)
    }

    struct ListDownloads: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List downloads.")
        @OptionGroup var global: GlobalOptions
        func run() async throws {
            let entries = DownloadBook.load().entries.values.sorted { $0.id < $1.id }
            if global.json {
                return Output.printJSON(entries.map { e -> [String: Any] in
                    ["id": e.id, "title": e.title, "state": e.state, "done": e.done, "total": e.total, "folder": e.folder,
                     "error": e.error ?? NSNull()]
                })
            }
            if entries.isEmpty { return Output.note("No downloads.") }
            print(Output.table(["ID", "TITLE", "STATE", "PROGRESS", "FOLDER"], entries.map {
                [$0.id, $0.title, $0.state, $0.total > 0 ? "\($0.done)/\($0.total)" : "-", $0.folder]
            }, flex: 4))
        }
    }

    struct Pause: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Pause a running download (it stops after its current segment).")
        @Argument(help: "The download's id.") var id: String
        func run() async throws {
            guard try DownloadBook.update(id, { if $0.state == "running" || $0.state == "waiting" { $0.state = "paused" } }) != nil else {
                throw QBTClientError.notFound("no download \(id): see `qbt music downloads`")
            }
            print("Paused \(id).")
        }
    }

    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Continue a paused or failed download.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The download's id.") var id: String
        func run() async throws {
            guard let entry = DownloadBook.load().entries[id] else { throw QBTClientError.notFound("no download \(id): see `qbt music downloads`") }
            guard entry.state != "completed", entry.state != "cancelled" else { return print("\(id) is \(entry.state).") }
            let (client, _) = try await Music.client(global)
            let done = try await Music.runDownload(id, client: client)
            if global.json { return Output.printJSON(["id": id, "state": done.state]) }
            print("\(id): \(done.state) (\(done.done)/\(done.total) segments).")
        }
    }

    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Cancel a download and delete what it saved.")
        @Argument(help: "The download's id.") var id: String
        func run() async throws {
            guard let entry = try DownloadBook.update(id, { $0.state = "cancelled" }) else {
                throw QBTClientError.notFound("no download \(id): see `qbt music downloads`")
            }
            try? FileManager.default.removeItem(atPath: entry.folder)
            print("Cancelled \(id).")
        }
    }
}

/// SIGINT as a flag instead of an exit, for work that stops cleanly between steps.
final class Interrupt: @unchecked Sendable {
    private let lock = NSLock()
    private var hit = false
    private var source: DispatchSourceSignal?

    var fired: Bool { lock.withLock { hit } }

    static func arm() -> Interrupt {
        let interrupt = Interrupt()
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { interrupt.lock.withLock { interrupt.hit = true } }
        source.resume()
        interrupt.source = source
        return interrupt
    }
}
