import Foundation
import Synchronization
import TorrentEngine

/// qBittorrent 5's torrent creator: tasks queued and run one at a time off the cooperative pool, their progress
/// readable while they run, their .torrent kept for `torrentcreator/torrentFile`, and with `startSeeding` the result
/// added to the session to seed from where its data is.
public actor TorrentCreationManager {
    public struct Params: Sendable {
        public var sourcePath: String
        public var torrentFilePath: String?
        public var options = TorrentCreationOptions()
        public var startSeeding: Bool

        public init(sourcePath: String, torrentFilePath: String?, startSeeding: Bool) {
            self.sourcePath = sourcePath
            self.torrentFilePath = torrentFilePath
            self.startSeeding = startSeeding
        }
    }

    public enum Status: String, Sendable { case queued = "Queued", running = "Running", finished = "Finished", failed = "Failed" }

    public struct CreationTask: Sendable {
        public let id: String
        public let params: Params
        public let timeAdded: Date
        public var timeStarted: Date?
        public var timeFinished: Date?
        public var status = Status.queued
        public var pieceSize: Int?
        public var error: String?
        /// Where the .torrent was written.
        public var torrentPath: String?
        let progress: Progress

        /// Percent done, 0–100, while running.
        public var percent: Int { progress.percent.load(ordering: .relaxed) }
    }

    /// Shared with the hashing thread: how far it got, and whether to stop.
    final class Progress: Sendable {
        let percent = Atomic<Int>(0)
        let cancelled = Atomic<Bool>(false)
    }

    static let maxTasks = 256
    private var tasks: [String: CreationTask] = [:]
    private var order: [String] = []
    private var queue: [String] = []
    private var running = false
    let service: TorrentService
    let outputDirectory: String

    /// Tasks live in memory only, so .torrent files a previous run made here belong to no task: they go.
    public init(service: TorrentService, outputDirectory: String) {
        self.service = service
        self.outputDirectory = outputDirectory
        try? FileManager.default.removeItem(atPath: outputDirectory)
    }

    public var all: [CreationTask] { order.compactMap { tasks[$0] } }
    public func task(_ id: String) -> CreationTask? { tasks[id] }

    /// nil when 256 tasks exist and none has finished ("Too many active tasks").
    public func add(_ params: Params) -> String? {
        if tasks.count >= Self.maxTasks {
            for id in order where tasks.count >= Self.maxTasks {
                if let t = tasks[id], t.status == .finished || t.status == .failed { remove(id) }
            }
        }
        guard tasks.count < Self.maxTasks else { return nil }
        let id = UUID().uuidString.lowercased()
        tasks[id] = CreationTask(id: id, params: params, timeAdded: Date(), progress: Progress())
        order.append(id)
        queue.append(id)
        if !running { running = true; Task { await self.drain() } }
        return id
    }

    /// Removes a task (a running one is stopped). false when unknown.
    public func delete(_ id: String) -> Bool {
        guard tasks[id] != nil else { return false }
        remove(id)
        return true
    }

    private func remove(_ id: String) {
        tasks[id]?.progress.cancelled.store(true, ordering: .relaxed)
        if let path = tasks[id]?.torrentPath, tasks[id]?.params.torrentFilePath == nil { unlink(path) }
        tasks[id] = nil
        order.removeAll { $0 == id }
        queue.removeAll { $0 == id }
    }

    private func drain() async {
        while !queue.isEmpty {
            let id = queue.removeFirst()
            guard var task = tasks[id] else { continue }
            task.status = .running
            task.timeStarted = Date()
            tasks[id] = task
            let outcome = await Self.hash(task)
            guard var done = tasks[id] else { continue }  // deleted meanwhile
            done.timeFinished = Date()
            switch outcome {
            case .success(let (bytes, pieceSize)):
                do {
                    done.torrentPath = try write(bytes, for: done)
                    done.pieceSize = pieceSize
                    done.status = .finished
                    if done.params.startSeeding { await seed(bytes, done) }
                } catch {
                    done.status = .failed
                    done.error = "\(error)"
                }
            case .failure(let error):
                done.status = .failed
                done.error = "\(error)"
            }
            tasks[id] = done
        }
        running = false
    }

    /// libtorrent hashes on a thread of its own, not on the cooperative pool.
    static func hash(_ task: CreationTask) async -> Result<([UInt8], Int), Error> {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let progress = task.progress
                let result = Result {
                    let made = try TorrentCreator.create(path: task.params.sourcePath, options: task.params.options) { done, total in
                        progress.percent.store(total > 0 ? done * 100 / total : 0, ordering: .relaxed)
                        return !progress.cancelled.load(ordering: .relaxed)
                    }
                    return (made.torrent, made.pieceSize)
                }
                continuation.resume(returning: result)
            }
        }
    }

    private func write(_ bytes: [UInt8], for task: CreationTask) throws -> String {
        let path = task.params.torrentFilePath ?? outputDirectory + "/" + task.id + ".torrent"
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
        return path
    }

    /// Added as qBittorrent adds it: saved where the data is, not checked, not automatically managed.
    private func seed(_ bytes: [UInt8], _ task: CreationTask) async {
        var options = AddOptions()
        let parent = (task.params.sourcePath as NSString).deletingLastPathComponent
        do { options.savePath = try service.paths.savePath(parent) } catch {
            service.log.add("Torrent creator: cannot seed \(task.params.sourcePath): \(error)", kind: .warning)
            return
        }
        options.skipChecking = true
        options.autoTMM = false
        options.contentLayout = .original  // the data stays exactly where it is (the layout preference would move it)
        switch await service.add(.metainfo(bytes), options: options) {
        case .added, .duplicate: break
        case .invalid(let why): service.log.add("Torrent creator: cannot seed \(task.params.sourcePath): \(why)", kind: .warning)
        }
    }
}
