import CCrypto
import Foundation
import GRDB
import SystemKit

/// The MP3 library: music folders scanned (incrementally, by path, size and mtime) into a SQLite database that
/// clients download whole; a frame index per track cached beside it; HLS segmenters for tracks; AES keys.
public actor MusicLibrary {
    public struct Configuration: Sendable {
        public var directories: [String]
        /// Where the library database, the frame-index cache and the key secret live.
        public var dataDirectory: String
        public var encrypt = false
        /// The most bytes of cut segments kept on disk (`CutSegments`).
        public var cutBudget = 512 << 20

        public init(directories: [String], dataDirectory: String) {
            self.directories = directories
            self.dataDirectory = dataDirectory
        }
    }

    public struct ScanReport: Sendable, Equatable {
        public var added = 0, changed = 0, removed = 0, failed = 0, tracks = 0
        public var playlistsChanged = false
        public var seconds = 0.0
        public var changedLibrary: Bool { added + changed + removed > 0 || playlistsChanged }
    }

    public struct TrackFile: Sendable {
        public var id: Int64
        public var path: String
        public var error: String?
    }

    public nonisolated let configuration: Configuration
    let library: DatabaseQueue
    /// A pool: a playlist's index lookup reads while a scan, or the cache write of the index read before, writes.
    let frames: DatabasePool
    let secret: [UInt8]
    public private(set) var version: Int
    /// The folders scanned: the configuration's, or later the `music_dirs` preference's.
    public private(set) var directories: [String]
    private var listeners: [UUID: AsyncStream<Int>.Continuation] = [:]
    private var segmenters: [Int64: (stamp: FileStamp, segmenter: HLSSegmenter)] = [:]
    /// `segmenters` with their tracks' paths, for segment requests off the actor (kept in step with it).
    public nonisolated let ready = ReadySegmenters()
    /// Segments cut before (in `<data>/hls-segments`), encrypted when `encrypt` is on.
    public nonisolated let cut: CutSegments
    /// Tracks with a segmenter in memory, least recently used first.
    private var recent: [Int64] = []
    /// Indexings under way, so concurrent first requests for a track share one.
    private var building: [Int64: (stamp: FileStamp, task: Task<HLSSegmenter, Error>)] = [:]
    /// Tracks' paths and errors by id, as last read; see `track(_:)`.
    private var trackFiles: [Int64: TrackFile] = [:]
    private var trackGeneration = 0
    private var scanning: Task<ScanReport, Never>?
    /// A scan was asked for while one ran.
    private var again = false

    public init(configuration: Configuration) async throws {
        self.configuration = configuration
        directories = configuration.directories
        let dir = configuration.dataDirectory
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        Self.sweepSnapshotTemps(in: dir)
        var config = GRDB.Configuration()
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL") }
        library = try DatabaseQueue(path: dir + "/library.sqlite", configuration: config)
        try LibrarySchema.library.migrate(library)
        var poolConfig = GRDB.Configuration()  // a pool is in WAL mode by itself; its readers only read
        poolConfig.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        frames = try DatabasePool(path: dir + "/frame-index.sqlite", configuration: poolConfig)
        try LibrarySchema.frameIndex.migrate(frames)
        secret = try Self.loadSecret(dir + "/hls-key.secret")
        cut = CutSegments(directory: dir + "/hls-segments", budget: configuration.cutBudget)
        version = try await library.read(Self.storedVersion)
    }

    /// A snapshot being written when qbtd was killed stays as `library-v….sqlite.tmp` (a later snapshot of another
    /// version leaves other versions' temp files alone, as they may be in progress): none is in progress at start.
    static func sweepSnapshotTemps(in dir: String) {
        removeSnapshots(in: dir) { $0.contains(".sqlite.tmp") }  // with its -journal, if any
    }

    /// Removes the snapshot files (`library-v…`) in `dir` whose names `matching` accepts.
    static func removeSnapshots(in dir: String, matching: (String) -> Bool) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] where name.hasPrefix("library-v") && matching(name) {
            try? FileManager.default.removeItem(atPath: dir + "/" + name)
        }
    }

    static func storedVersion(_ db: Database) throws -> Int {
        Int(try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'version'") ?? "0") ?? 0
    }

    /// 32 random bytes made once, readable by qbtd alone: every track's key derives from it.
    static func loadSecret(_ path: String) throws -> [UInt8] {
        if let data = FileManager.default.contents(atPath: path), data.count == 32 { return [UInt8](data) }
        var bytes = [UInt8](repeating: 0, count: 32)
        guard qbt_random_bytes(&bytes, 32) else { throw MusicError.unreadable("no randomness for the key secret") }
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) else {
            throw MusicError.unreadable(path)
        }
        return bytes
    }

    /// The track's AES-128 key: stable, so a client can keep it for offline play.
    public nonisolated func key(for track: Int64) -> [UInt8] {
        var input = secret + Array("qbtd-hls-key:\(track)".utf8)
        var out = [UInt8](repeating: 0, count: 32)
        _ = qbt_sha256(&input, input.count, &out)
        return Array(out.prefix(16))
    }

    /// Library versions as they change (after a rescan that changed something).
    public func changes() -> AsyncStream<Int> {
        let (stream, continuation) = AsyncStream<Int>.makeStream(bufferingPolicy: .bufferingNewest(4))
        let id = UUID()
        listeners[id] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.dropListener(id) } }
        return stream
    }

    private func dropListener(_ id: UUID) { listeners[id] = nil }

    // MARK: scanning

    /// New folders (the `music_dirs` preference); the next scan drops what is no longer under them.
    public func setDirectories(_ dirs: [String]) { directories = dirs }

    /// Rescans the folders. A scan already running is joined, not doubled, and runs once more when it is done (it
    /// may have started before a change, such as new folders, that the caller wants seen) — unless the caller only
    /// `join`s (the periodic rescan, which a running scan satisfies).
    @discardableResult
    public func scan(join: Bool = false) async -> ScanReport {
        if let scanning {
            if !join { again = true }
            return await scanning.value
        }
        let task = Task {
            var report = await self.runScan()
            while again {
                again = false
                report = await self.runScan()
            }
            scanning = nil  // no await since `again` was last read: a later request starts a scan of its own
            return report
        }
        scanning = task
        return await task.value
    }

    struct Found: Sendable { var path: String; var size: Int64; var mtime: Int64 }

    /// Files are read and written in batches, so a first scan of a big library never holds every frame index at once.
    static let batch = 200

    private func runScan() async -> ScanReport {
        let started = ContinuousClock.now
        var report = ScanReport()
        let dirs = directories
        let (mp3s, lists) = await offPool { Self.walk(dirs) }
        report.tracks = mp3s.count
        do {
            let known = try await library.read { db in
                var out: [String: (id: Int64, size: Int64, mtime: Int64)] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT id, path, size, mtime FROM tracks") {
                    out[row["path"]] = (row["id"], row["size"], row["mtime"])
                }
                return out
            }
            let todo = mp3s.filter { f in known[f.path].map { $0.size != f.size || $0.mtime != f.mtime } ?? true }
            let removed = Set(known.keys).subtracting(mp3s.map(\.path))
            for start in stride(from: 0, to: todo.count, by: Self.batch) {
                let files = Array(todo[start..<min(start + Self.batch, todo.count)])
                let scans = await Self.read(files)
                try await frames.write { db in
                    for (file, scan) in zip(files, scans) { try Self.storeIndex(db, file, scan.index) }
                }
                // Each transaction that changes tracks bumps the version with them: a crash never leaves changed
                // tracks under an old version (and an old snapshot).
                tracksWritten()
                defer { tracksWritten() }
                try await library.write { db in
                    for (file, scan) in zip(files, scans) { try Self.storeTrack(db, file, scan, id: known[file.path]?.id) }
                    try Self.bumpVersion(db)
                }
                report.added += files.filter { known[$0.path] == nil }.count
                report.failed += scans.filter { $0.error != nil }.count
            }
            report.changed = todo.count - report.added
            report.removed = removed.count
            try await frames.write { db in for path in removed { try Self.dropIndex(db, path) } }
            let tracksChanged = !todo.isEmpty || !removed.isEmpty
            tracksWritten()
            defer { tracksWritten() }
            report.playlistsChanged = try await library.write { db -> Bool in
                for path in removed { try db.execute(sql: "DELETE FROM tracks WHERE path = ?", arguments: [path]) }
                if tracksChanged { try Self.relink(db) }
                let listsChanged = try Self.syncPlaylists(db, lists, force: tracksChanged)
                if listsChanged || !removed.isEmpty { try Self.bumpVersion(db) }
                return listsChanged
            }
        } catch {
            report.failed += 1
        }
        // Read back whatever happened, a failed batch included: the version served is always the stored one.
        let before = version
        if let stored = try? await library.read(Self.storedVersion) { version = stored }
        if version != before { for listener in listeners.values { listener.yield(version) } }
        report.seconds = (ContinuousClock.now - started).inSeconds
        return report
    }

    static func bumpVersion(_ db: Database) throws {
        try db.execute(sql: "UPDATE meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) WHERE key = 'version'")
    }

    static func dropIndex(_ db: Database, _ path: String) throws {
        try db.execute(sql: "DELETE FROM frames WHERE path = ?", arguments: [path])
    }

    /// A file's frame index in the cache, or none (not MP3, or gone).
    static func storeIndex(_ db: Database, _ file: Found, _ index: FrameIndex?) throws {
        guard let index else { return try dropIndex(db, file.path) }
        let (o, s, n) = index.blobs
        try db.execute(sql: "INSERT OR REPLACE INTO frames VALUES (?, ?, ?, ?, ?, ?, ?)",
                       arguments: [file.path, file.size, file.mtime, index.sampleRate, o, s, n])
    }

    static func storeTrack(_ db: Database, _ file: Found, _ scan: MP3Scan, id: Int64?) throws {
        let t = scan.tags
        let values: [(any DatabaseValueConvertible)?] = [
            file.size, file.mtime, t.title, t.artist, t.album, t.albumArtist, t.trackNumber, t.discNumber, t.year,
            t.genre, scan.duration, scan.totalSamples, scan.sampleRate, scan.channels, scan.bitrate, scan.vbr, scan.error,
        ]
        if let id {
            try db.execute(sql: """
                UPDATE tracks SET size = ?, mtime = ?, title = ?, artist = ?, album = ?, album_artist = ?,
                track_number = ?, disc_number = ?, year = ?, genre = ?, duration = ?, samples = ?, sample_rate = ?,
                channels = ?, bitrate = ?, vbr = ?, error = ? WHERE id = ?
                """, arguments: StatementArguments(values + [id]))
        } else {
            try db.execute(sql: """
                INSERT INTO tracks (size, mtime, title, artist, album, album_artist, track_number, disc_number,
                year, genre, duration, samples, sample_rate, channels, bitrate, vbr, error, path)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: StatementArguments(values + [file.path]))
        }
    }

    /// MP3s and playlists under the folders (symlinked folders not followed twice).
    static func walk(_ directories: [String]) -> ([Found], [Found]) {
        var mp3s: [Found] = [], lists: [Found] = []
        var seen = Set<String>()
        for dir in directories {
            let root = URL(fileURLWithPath: dir).resolvingSymlinksInPath()
            guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey, .fileSizeKey, .contentModificationDateKey]) else { continue }
            for case let url as URL in walker {
                let ext = url.pathExtension.lowercased()
                guard ["mp3", "m3u", "m3u8"].contains(ext),
                      let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .fileSizeKey, .contentModificationDateKey]),
                      values.isRegularFile == true else { continue }
                let path = url.standardizedFileURL.path
                guard seen.insert(path).inserted else { continue }
                let found = Found(path: path, size: Int64(values.fileSize ?? 0),
                                  mtime: Int64(((values.contentModificationDate?.timeIntervalSince1970 ?? 0) * 1000).rounded()))
                if ext == "mp3" { mp3s.append(found) } else { lists.append(found) }
            }
        }
        return (mp3s, lists)
    }

    /// Reads the files on both cores, off the cooperative pool.
    static func read(_ files: [Found]) async -> [MP3Scan] {
        guard !files.isEmpty else { return [] }
        return await offPool {
            let results = Results(count: files.count)
            DispatchQueue.concurrentPerform(iterations: files.count) { i in
                results.set(i, MP3Scan.read(files[i].path))
            }
            return results.all
        }
    }

    /// One slot per file, each written by exactly one worker.
    final class Results: @unchecked Sendable {
        private var slots: [MP3Scan]
        private let lock = NSLock()
        init(count: Int) { slots = Array(repeating: MP3Scan(), count: count) }
        func set(_ i: Int, _ scan: MP3Scan) { lock.withLock { slots[i] = scan } }
        var all: [MP3Scan] { lock.withLock { slots } }
    }

    /// Albums and artists follow the tracks' tags (ids kept for what still exists).
    static func relink(_ db: Database) throws {
        try db.execute(sql: """
            INSERT OR IGNORE INTO artists (name) SELECT DISTINCT artist FROM tracks WHERE artist != '' AND error IS NULL;
            INSERT OR IGNORE INTO artists (name) SELECT DISTINCT album_artist FROM tracks WHERE album_artist != '' AND error IS NULL;
            INSERT OR IGNORE INTO albums (title, album_artist)
                SELECT DISTINCT album, CASE WHEN album_artist != '' THEN album_artist ELSE artist END FROM tracks
                WHERE album != '' AND error IS NULL;
            UPDATE tracks SET
                artist_id = (SELECT id FROM artists WHERE name = tracks.artist),
                album_id = (SELECT id FROM albums WHERE title = tracks.album AND album_artist =
                            CASE WHEN tracks.album_artist != '' THEN tracks.album_artist ELSE tracks.artist END);
            UPDATE albums SET artist_id = (SELECT id FROM artists WHERE name = albums.album_artist),
                year = COALESCE((SELECT MAX(year) FROM tracks WHERE album_id = albums.id), '');
            DELETE FROM albums WHERE id NOT IN (SELECT album_id FROM tracks WHERE album_id IS NOT NULL);
            DELETE FROM artists WHERE id NOT IN (SELECT artist_id FROM tracks WHERE artist_id IS NOT NULL)
                AND id NOT IN (SELECT artist_id FROM albums WHERE artist_id IS NOT NULL);
            """)
    }

    /// `.m3u`/`.m3u8` files become playlists of the library's tracks; returns whether any changed.
    static func syncPlaylists(_ db: Database, _ lists: [Found], force: Bool) throws -> Bool {
        var known: [String: (Int64, Int64, Int64)] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, path, size, mtime FROM playlists") { known[row["path"]] = (row["id"], row["size"], row["mtime"]) }
        var changed = false
        let present = Set(lists.map(\.path))
        for (path, entry) in known where !present.contains(path) {
            try db.execute(sql: "DELETE FROM playlists WHERE id = ?", arguments: [entry.0])
            changed = true
        }
        for list in lists {
            let old = known[list.path]
            if let old, old.1 == list.size, old.2 == list.mtime, !force { continue }
            let id: Int64
            if let old {
                id = old.0
                try db.execute(sql: "UPDATE playlists SET size = ?, mtime = ? WHERE id = ?", arguments: [list.size, list.mtime, id])
                try db.execute(sql: "DELETE FROM playlist_items WHERE playlist_id = ?", arguments: [id])
            } else {
                let name = URL(fileURLWithPath: list.path).deletingPathExtension().lastPathComponent
                try db.execute(sql: "INSERT INTO playlists (name, path, size, mtime) VALUES (?, ?, ?, ?)",
                               arguments: [name, list.path, list.size, list.mtime])
                id = db.lastInsertedRowID
            }
            var position = 0
            for entry in playlistEntries(list.path) {
                guard let track = try Int64.fetchOne(db, sql: "SELECT id FROM tracks WHERE path = ?", arguments: [entry]) else { continue }
                try db.execute(sql: "INSERT INTO playlist_items VALUES (?, ?, ?)", arguments: [id, position, track])
                position += 1
            }
            changed = true
        }
        return changed
    }

    /// The files a playlist names, absolute (relative entries are taken from the playlist's folder).
    static func playlistEntries(_ path: String) -> [String] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        let text = String(decoding: data, as: UTF8.self)
        let base = URL(fileURLWithPath: path).deletingLastPathComponent()
        return text.split(whereSeparator: \.isNewline).compactMap { raw in
            let line = raw.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "\u{FEFF}", with: "")
            guard !line.isEmpty, !line.hasPrefix("#") else { return nil }
            if line.hasPrefix("file://") { return URL(string: line)?.standardizedFileURL.resolvingSymlinksInPath().path }
            let url = line.hasPrefix("/") ? URL(fileURLWithPath: line) : base.appendingPathComponent(line)
            return url.standardizedFileURL.resolvingSymlinksInPath().path
        }
    }

    // MARK: serving

    /// A consistent copy of the library database at the current version (made once per version), opened: an
    /// older snapshot removed by a newer request stays readable to the one that has it.
    public func snapshot() async throws -> (version: Int, file: FileHandle) {
        let v = version
        let dir = configuration.dataDirectory
        // ".relative": snapshots from before paths were made relative (same version numbers) are not served again.
        let path = dir + "/library-v\(v).relative.sqlite"
        if !FileManager.default.fileExists(atPath: path) {
            let library = self.library, folders = directories
            try await offPool {
                Result {
                    let temp = path + ".tmp"
                    try? FileManager.default.removeItem(atPath: temp)
                    let copy = try DatabaseQueue(path: temp)
                    try library.backup(to: copy)
                    try LibraryPaths.relativize(copy, folders: folders)
                    try copy.close()
                    guard rename(temp, path) == 0 else { throw MusicError.unreadable(path) }
                }
            }.get()
            // Older snapshots go.
            Self.removeSnapshots(in: dir) { $0 != "library-v\(v).relative.sqlite" && !$0.hasSuffix(".tmp") }
        }
        guard let file = FileHandle(forReadingAtPath: path) else { throw MusicError.unreadable(path) }
        return (v, file)
    }

    /// From memory after the first request (every segment request asks); the scan empties the memory whenever it
    /// writes tracks.
    public func track(_ id: Int64) async throws -> TrackFile? {
        if let known = trackFiles[id] { return known }
        let generation = trackGeneration
        let found = try await library.read { db in
            try Row.fetchOne(db, sql: "SELECT id, path, error FROM tracks WHERE id = ?", arguments: [id]).map {
                TrackFile(id: $0["id"], path: $0["path"], error: $0["error"])
            }
        }
        // Not kept when a scan wrote tracks meanwhile: the row read may be the one just replaced.
        if let found, generation == trackGeneration {
            if trackFiles.count >= 4096 { trackFiles.removeAll(keepingCapacity: true) }
            trackFiles[id] = found
        }
        return found
    }

    private func tracksWritten() {
        trackGeneration &+= 1
        trackFiles.removeAll()
        ready.clear()
    }

    /// The track's segmenter and the file's version (size and mtime): from memory, else from the index cache when the
    /// file is unchanged, else the file is indexed now (and cached). Requests for a track being indexed wait for
    /// that one indexing.
    public func segmenter(for track: TrackFile) async throws -> (segmenter: HLSSegmenter, version: String) {
        // A file that cannot be stat'ed gets the stamp the old attribute lookup gave it; opening it fails later.
        let stamp = FileStamp(path: track.path) ?? FileStamp(size: -1, mtime: 0)
        if let cached = segmenters[track.id], cached.stamp == stamp {
            publishReady(track, stamp, cached.segmenter)
            if recent.last != track.id {
                recent.removeAll { $0 == track.id }
                recent.append(track.id)
            }
            return (cached.segmenter, stamp.text)
        }
        let build: Task<HLSSegmenter, Error>
        if let pending = building[track.id], pending.stamp == stamp { build = pending.task } else {
            let file = Found(path: track.path, size: stamp.size, mtime: stamp.mtime)
            build = Task { try await self.index(file) }
            building[track.id] = (stamp, build)
        }
        defer { if building[track.id]?.stamp == stamp { building[track.id] = nil } }
        let segmenter = try await build.value
        segmenters[track.id] = (stamp, segmenter)
        publishReady(track, stamp, segmenter)
        recent.removeAll { $0 == track.id }
        recent.append(track.id)
        if recent.count > 64 {
            let gone = recent.removeFirst()
            segmenters[gone] = nil
            ready.remove(gone)
        }
        return (segmenter, stamp.text)
    }

    /// Offered to the fast path while the track is the one the library has in memory under its id (not a row a scan
    /// has replaced since it was read).
    private func publishReady(_ track: TrackFile, _ stamp: FileStamp, _ segmenter: HLSSegmenter) {
        guard trackFiles[track.id]?.path == track.path else { return }
        ready.set(track.id, path: track.path, stamp: stamp, segmenter: segmenter)
    }

    /// A file's frame index from the cache, or read from the file now (and cached).
    private func index(_ file: Found) async throws -> HLSSegmenter {
        let stored = try await frames.read { db -> FrameIndex? in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM frames WHERE path = ? AND size = ? AND mtime = ?",
                                             arguments: [file.path, file.size, file.mtime]) else { return nil }
            return FrameIndex(sampleRate: row["sample_rate"], blobs: (row["offsets"], row["sizes"], row["samples"]))
        }
        if let stored { return HLSSegmenter(stored) }
        let scan = await Self.read([file])[0]
        guard let built = scan.index, scan.error == nil else { throw MusicError.notMP3(scan.error ?? "not an MP3 file") }
        // The cache is written after the answer, not before it: the playlist waits for the file's reading only. A
        // failed write costs the next cold start a reading again, nothing else, so it is not the request's error.
        let cache = frames
        Task.detached(priority: .utility) { try? await cache.write { db in try Self.storeIndex(db, file, built) } }
        return HLSSegmenter(built)
    }
}
