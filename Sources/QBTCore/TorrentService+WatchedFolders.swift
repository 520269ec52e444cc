import Foundation
import SystemKit
import TorrentEngine

/// qBittorrent's watched folders (TorrentFilesWatcher): a .torrent or .magnet file that lands in one is added, then
/// deleted; one that cannot be read is tried again for a minute, then renamed `<name>.qbt_rejected`.
extension TorrentService {
    /// How long a file that cannot be read yet is retried: every 2 s, 10 times (qBittorrent: every 10 s, 6 times).
    static let watchRetryInterval: Duration = .seconds(2)
    static let watchMaxAttempts = 10

    /// At start and whenever `scan_dirs` changes: watch the folders, and take what is already in them.
    func configureWatchedFolders() async {
        watchedFolders = WatchedFolder.list(.object(settings[\.scanDirs]), paths: paths).folders
        guard !watchedFolders.isEmpty || folderEvents != nil else { return }
        if folderEvents == nil {
            folderEvents = FolderEvents { [weak self] folder, name in
                Task { await self?.folderEvent(folder, name) }
            }
        }
        let failed = folderEvents?.watch(watchedFolders.map(\.folder)) ?? []
        for (folder, reason) in failed { log.add("Cannot watch folder \"\(folder)\": \(reason)", kind: .warning) }
        for folder in watchedFolders where !failed.contains(where: { $0.0 == folder.folder }) {
            log.add("Watching folder: \"\(folder.folder)\"")
        }
        watchRetries = watchRetries.filter { path, _ in
            watchedFolders.contains { $0.folder == (path as NSString).deletingLastPathComponent }
        }
        await rescanWatchedFolders()
    }

    func folderEvent(_ folder: String, _ name: String) async {
        if folder.isEmpty { return await rescanWatchedFolders() }
        if name.isEmpty {
            log.add("Stopped watching folder \"\(folder)\": it was removed or unmounted; set scan_dirs again to watch it", kind: .warning)
            return
        }
        await watchedFileAppeared(folder + "/" + name)
    }

    func rescanWatchedFolders() async {
        for folder in watchedFolders {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.folder)) ?? []
            for name in names.sorted() { await watchedFileAppeared(folder.folder + "/" + name) }
        }
    }

    func watchedFileAppeared(_ path: String) async {
        let lower = path.lowercased()
        guard lower.hasSuffix(".torrent") || lower.hasSuffix(".magnet") else { return }
        let folderPath = (path as NSString).deletingLastPathComponent
        guard let folder = watchedFolders.first(where: { $0.folder == folderPath }),
              FileManager.default.fileExists(atPath: path) else {
            watchRetries[path] = nil  // gone, or no longer watched
            return
        }
        if await addWatchedFile(path, folder) {
            watchRetries[path] = nil
            return
        }
        let attempts = (watchRetries[path] ?? 0) + 1
        if attempts >= Self.watchMaxAttempts {
            watchRetries[path] = nil
            log.add("Rejecting failed torrent file: \(path)", kind: .warning)
            try? FileManager.default.moveItem(atPath: path, toPath: path + ".qbt_rejected")
            return
        }
        watchRetries[path] = attempts
        if watchRetryTask == nil {
            watchRetryTask = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: Self.watchRetryInterval)
                    guard let self, await self.retryWatchedFiles() else { return }
                }
            }
        }
    }

    /// One retry round; false when nothing is left to retry (the task ends: nothing runs while all is well).
    func retryWatchedFiles() async -> Bool {
        for path in watchRetries.keys.sorted() { await watchedFileAppeared(path) }
        if watchRetries.isEmpty { watchRetryTask = nil }
        return !watchRetries.isEmpty
    }

    /// Adds what the file holds with the folder's options and deletes it once added; false when it cannot be read
    /// or added (yet): it stays for the next try.
    func addWatchedFile(_ path: String, _ folder: WatchedFolder) async -> Bool {
        let data: [UInt8]
        switch await Self.readWatchedFile(path) {
        case .bytes(let bytes): data = bytes
        case .notYet: return false
        case .refused(let why):
            log.add("Watched file left where it is: \(why). File: \"\(path)\"", kind: .warning)
            return true
        }
        var parsed: [ParsedTorrent] = []
        if path.lowercased().hasSuffix(".magnet") {
            for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
                let text = line.trimmingCharacters(in: .whitespaces)
                guard let torrent = try? ParsedTorrent(.magnet(Self.magnetURI(text))) else {
                    log.add("Invalid Magnet URI. URI: \(text.prefix(200)). Reason: not a magnet link or an info-hash", kind: .warning)
                    continue
                }
                parsed.append(torrent)
            }
        } else {
            guard let torrent = try? ParsedTorrent(.metainfo(data)) else { return false }
            parsed.append(torrent)
        }
        var options = AddOptions()
        options.stopped = settings[\.addStoppedEnabled]
        switch folder.target {
        case .watchedFolder: options.savePath = folder.folder; options.autoTMM = false
        case .path(let p): options.savePath = p; options.autoTMM = false
        case .defaultSavePath: break
        }
        let outcomes = parsed.isEmpty ? [] : await add(parsed, options: options)
        // Deleted only once every torrent in it is in (or was already): a failed add keeps the user's file.
        guard outcomes.allSatisfy({ if case .added = $0 { true } else if case .duplicate = $0 { true } else { false } })
        else { return false }
        try? FileManager.default.removeItem(atPath: path)
        return true
    }

    enum WatchedRead { case bytes([UInt8]), notYet, refused(String) }

    /// The file's bytes, read off the concurrency pool: a regular file only (not followed through a symlink, never
    /// a FIFO or a device that would block or never end), of at most 100 MiB.
    static func readWatchedFile(_ path: String) async -> WatchedRead {
        (try? await offPool { () -> WatchedRead in
            let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { return errno == ELOOP ? .refused("a symbolic link") : .notYet }
            defer { close(fd) }
            var info = stat()
            guard fstat(fd, &info) == 0 else { return .notYet }
            guard info.st_mode & S_IFMT == S_IFREG else { return .refused("not a regular file") }
            guard info.st_size <= maxWatchedFileSize else { return .refused("larger than 100 MiB") }
            var bytes = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
            var count = 0
            while count < bytes.count {
                let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                count += n
            }
            guard count <= maxWatchedFileSize else { return .refused("larger than 100 MiB") }
            return .bytes(Array(bytes.prefix(count)))
        }) ?? .notYet
    }

    static let maxWatchedFileSize = 100 << 20

    /// A magnet link, or a bare v1 (40 hex) or v2 (64 hex) info-hash as a magnet link.
    static func magnetURI(_ text: String) -> String {
        let hex = text.allSatisfy(\.isHexDigit)
        if hex && text.count == 40 { return "magnet:?xt=urn:btih:" + text }
        if hex && text.count == 64 { return "magnet:?xt=urn:btmh:1220" + text }
        return text
    }
}
