import ArgumentParser
import Foundation
import QBTClient

struct Upload: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Upload files or folders to qbtd (resumable, through tus), and optionally seed them.",
        discussion: """
            Folders keep their layout under the destination. An interrupted upload (a broken connection, Ctrl-C, \
            a server restart) picks up where it stopped with --resume. With --torrent, the server then makes a \
            torrent of what was uploaded and seeds it.
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("Files or folders to upload.", valueName: "path")) var paths: [String]
    @Option(help: ArgumentHelp("A folder on the server, inside its download or uploads folder (default: the uploads folder).", valueName: "dir"))
    var to: String?
    @Option(name: .shortAndLong, help: "Upload into this category's save path.") var category: String?
    @Flag(help: "Replace files that exist (default: a numbered name).") var overwrite = false
    @Flag(help: "Continue uploads that were interrupted.") var resume = false
    @Option(help: "Bytes per request, e.g. 16M.") var chunkSize = "16M"
    @Flag(help: "Make a torrent of the upload and seed it.") var torrent = false
    @Flag(help: "With --torrent: a private torrent.") var `private` = false
    @Option(help: ArgumentHelp("With --torrent: a tracker URL (repeatable).", valueName: "url")) var tracker: [String] = []

    struct Item {
        let local: URL
        let remote: String
        let size: Int64
        let modified: Int64
    }

    func validate() throws {
        if torrent && paths.count != 1 { throw ValidationError("--torrent makes one torrent: give one file or folder") }
    }

    func run() async throws {
        let chunk = Int(try parseRate(chunkSize))
        guard chunk >= 64 * 1024, chunk <= 1 << 30 else { throw ValidationError("--chunk-size must be between 64K and 1G") }
        let items = try collect()
        let client = try await global.client()
        let total = items.reduce(Int64(0)) { $0 + $1.size }
        var journal = try UploadJournal.load()
        var bar = ProgressBar("uploading")
        var sent: Int64 = 0
        var landed: [(Item, String)] = []
        let started = ContinuousClock.now
        for item in items {
            let key = UploadJournal.key(server: client.baseURL.absoluteString, item: item, to: to, category: category)
            var location: String?
            var offset: Int64 = 0
            var path: String?
            if let saved = journal.entries[key] {
                guard resume else {
                    throw QBTClientError.invalidInput("\(item.local.path) was being uploaded: add --resume to continue it")
                }
                // The server may have every byte already (stopped after the last answer): then it says where it landed.
                if let status = try await client.tusStatus(saved) { (location, offset, path) = (saved, status.offset, status.path) }
            }
            if location == nil {
                var metadata = ["filename": item.remote]
                if let to { metadata["path"] = to }
                if let category { metadata["category"] = category }
                if overwrite { metadata["overwrite"] = "true" }
                location = try await client.tusCreate(length: item.size, metadata: metadata)
                journal.entries[key] = location
                try journal.save()
            }
            let handle = try FileHandle(forReadingFrom: item.local)
            defer { try? handle.close() }
            if path == nil, offset >= item.size { path = try await client.tusStatus(location!)?.path }
            while offset < item.size {
                try handle.seek(toOffset: UInt64(offset))
                let data = try handle.read(upToCount: chunk) ?? Data()
                guard !data.isEmpty else { throw QBTClientError.invalidInput("\(item.local.path) changed while uploading") }
                let answer = try await client.tusPatch(location!, offset: offset, chunk: data)
                offset = answer.offset
                path = answer.path ?? path
                let done = sent + offset
                let rate = Double(done) / max((ContinuousClock.now - started) / .seconds(1), 0.001)
                bar.update(total > 0 ? Double(done) / Double(total) : 1,
                           detail: "\(Output.bytes(done)) of \(Output.bytes(total)) at \(Output.rate(Int64(rate)))")
            }
            sent += item.size
            journal.entries[key] = nil
            try journal.save()
            landed.append((item, path ?? item.remote))
        }
        bar.update(1, detail: "\(Output.bytes(total)) in \(items.count) file\(items.count == 1 ? "" : "s")")
        bar.finish()
        var hash: String?
        if torrent { hash = try await makeTorrent(client, landed) }
        if global.json {
            var out: [String: Any] = ["files": landed.map { ["local": $0.0.local.path, "path": $0.1, "size": $0.0.size] as [String: Any] }]
            if let hash { out["torrent"] = hash }
            return Output.printJSON(out)
        }
        for (item, path) in landed { print("\(item.local.lastPathComponent) → \(path)") }
        if let hash { print("Seeding torrent \(hash).") }
    }

    /// Files to send, each with the name it gets on the server (a folder's files keep their relative paths).
    func collect() throws -> [Item] {
        var items: [Item] = []
        for path in paths {
            let url = URL(fileURLWithPath: path).standardizedFileURL
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                throw QBTClientError.invalidInput("no such file or folder: \(path)")
            }
            if !isDirectory.boolValue {
                items.append(try item(url, remote: url.lastPathComponent))
                continue
            }
            let parent = url.deletingLastPathComponent().pathComponents.count  // the folder's own name is kept
            guard let walker = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey]) else { continue }
            var found: [URL] = []
            for case let file as URL in walker where (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                found.append(file.standardizedFileURL)
            }
            for file in found.sorted(by: { $0.path < $1.path }) {
                items.append(try item(file, remote: file.pathComponents.dropFirst(parent).joined(separator: "/")))
            }
        }
        guard !items.isEmpty else { throw QBTClientError.invalidInput("nothing to upload: the folders are empty") }
        return items
    }

    func item(_ url: URL, remote: String) throws -> Item {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        let modified = Int64((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)
        return Item(local: url, remote: remote, size: size, modified: modified)
    }

    /// The server makes a torrent of the upload (a file, or the top folder) and seeds it; returns its hash.
    func makeTorrent(_ client: QBTClient, _ landed: [(Item, String)]) async throws -> String {
        guard let (item, path) = landed.first else { throw QBTClientError.invalidInput("nothing was uploaded") }
        // `dir/sub/file` landed at `/srv/…/dir/sub/file`: the torrent is of `/srv/…/dir`.
        let depth = item.remote.split(separator: "/").count - 1
        var source = URL(fileURLWithPath: path)
        for _ in 0..<depth { source.deleteLastPathComponent() }
        let id = try await client.createTorrent(sourcePath: source.path, startSeeding: true, isPrivate: `private`, trackers: tracker)
        var bar = ProgressBar("making the torrent")
        for _ in 0..<86400 * 4 {
            let task = try await client.torrentTask(id)
            let status = task["status"] as? String ?? ""
            bar.update(Double((task["progress"] as? NSNumber)?.intValue ?? (status == "Finished" ? 100 : 0)) / 100)
            if status == "Finished" {
                bar.finish()
                let file = try await client.torrentFile(id)
                return InfoHash.ofMetainfo(file) ?? id
            }
            if status == "Failed" {
                bar.finish()
                throw QBTClientError.conflict("the server could not make the torrent: \(task["errorMessage"] as? String ?? "unknown error")")
            }
            try await Task.sleep(nanoseconds: 250_000_000)
        }
        throw QBTClientError.conflict("the torrent is still being made: see `qbt log`")
    }
}

/// Uploads under way, so `--resume` knows where each stopped: `~/.config/qbt/uploads.json`, the user's alone.
struct UploadJournal: Codable {
    var entries: [String: String] = [:]

    static var path: URL { Config.path.deletingLastPathComponent().appendingPathComponent("uploads.json") }

    static func key(server: String, item: Upload.Item, to: String?, category: String?) -> String {
        [server, item.local.path, String(item.size), String(item.modified), to ?? "", category ?? ""].joined(separator: "|")
    }

    static func load() throws -> UploadJournal {
        guard let data = try? Data(contentsOf: path) else { return UploadJournal() }
        return (try? JSONDecoder().decode(UploadJournal.self, from: data)) ?? UploadJournal()
    }

    func save() throws { try writePrivately(try JSONEncoder().encode(self), to: Self.path) }
}
