import Foundation
import HTTPKit
import QBTCore
import SystemKit
import TorrentEngine

/// qBittorrent 5's `/api/v2/torrentcreator/*`: make a .torrent from a file or folder, optionally seed it.
/// The .torrent may only be written inside qbtd's folders (qBittorrent writes anywhere it can).
public struct TorrentCreatorController: APIController {
    public let scope = "torrentcreator"
    let creator: TorrentCreationManager
    let paths: ServerPaths
    let identity: Identity

    public init(creator: TorrentCreationManager, paths: ServerPaths, identity: Identity) {
        self.creator = creator
        self.paths = paths
        self.identity = identity
    }

    public var actions: [String: APIAction] {
        [
            "addTask": .post { p, _ in
                let source = try p.required("sourcePath")
                guard !source.isEmpty else { throw QBitError.badParams() }
                var torrentFile = p["torrentFilePath"].flatMap { $0.isEmpty ? nil : $0 }
                if let requested = torrentFile {
                    do { torrentFile = try paths.savePath(requested) } catch { throw QBitError.conflict("\(error)") }
                }
                var params = TorrentCreationManager.Params(
                    sourcePath: try Self.sourcePath(source, paths),
                    torrentFilePath: torrentFile, startSeeding: p.bool("startSeeding") ?? (torrentFile == nil))
                params.options.isPrivate = p.bool("private") ?? false
                if identity.profile >= .v5_3 { params.options.ignoreDotfiles = p.bool("ignoreDotfiles") ?? true }
                params.options.format = switch p["format"]?.lowercased() {
                case "v1": .v1
                case "v2": .v2
                default: .hybrid
                }
                let pieceSize = Int(p["pieceSize"] ?? "") ?? 0
                // 0 (libtorrent chooses) or a power of two from 16 KiB to 256 MiB, as libtorrent can make.
                guard pieceSize == 0 || (16 << 10...256 << 20).contains(pieceSize) && pieceSize & (pieceSize - 1) == 0 else {
                    throw QBitError.badParams("pieceSize must be 0 or a power of two from 16384 to 268435456")
                }
                params.options.pieceSize = pieceSize
                params.options.comment = p["comment"] ?? ""
                params.options.source = p["source"] ?? ""
                params.options.trackers = Self.tiers(p["trackers"] ?? "")
                params.options.urlSeeds = (p["urlSeeds"] ?? "").split(separator: "|").map(String.init).filter { !$0.isEmpty }
                guard let id = await creator.add(params) else { throw QBitError.conflict("Too many active tasks") }
                return .json(.object(["taskID": .string(id)]))
            },
            "status": .get { p, _ in
                let id = p["taskID"] ?? ""
                let tasks: [TorrentCreationManager.CreationTask]
                if id.isEmpty { tasks = await creator.all } else {
                    guard let task = await creator.task(id) else { throw QBitError.notFound() }
                    tasks = [task]
                }
                return .json(.array(tasks.map { Self.json($0, identity) }))
            },
            "torrentFile": .get { p, _ in
                let id = try p.required("taskID")
                guard let task = await creator.task(id) else { throw QBitError.notFound() }
                guard task.status == .finished || task.status == .failed else {
                    throw QBitError.conflict("Torrent creation is still unfinished.")
                }
                guard task.status == .finished, let path = task.torrentPath else { throw QBitError.conflict("Torrent creation failed.") }
                guard let data = FileManager.default.contents(atPath: path) else { throw QBitError.conflict("cannot read \(path)") }
                return .binary(Array(data), contentType: "application/x-bittorrent", filename: id + ".torrent")
            },
            "deleteTask": .post { p, _ in
                let id = try p.required("taskID")
                guard await creator.delete(id) else { throw QBitError.notFound() }
                return .empty
            },
        ]
    }

    /// `|`-separated URLs; qBittorrent puts each in its own tier.
    static func tiers(_ text: String) -> [[String]] {
        text.split(separator: "|").map { [$0.trimmingCharacters(in: .whitespaces)] }.filter { !$0[0].isEmpty }
    }

    /// As `TorrentCreatorController::statusAction` writes a task: Qt's text dates before 5.3, epoch seconds from 5.3
    /// on, which also reports `ignoreDotfiles` and its tracker and web seed lists even when empty (`[""]`).
    static func json(_ task: TorrentCreationManager.CreationTask, _ identity: Identity) -> JSONValue {
        let v53 = identity.profile >= .v5_3
        func time(_ date: Date) -> JSONValue { v53 ? .int(Int64(date.timeIntervalSince1970)) : .string(DateText.qt(date)) }
        let format = switch task.params.options.format { case .v1: "v1"; case .v2: "v2"; case .hybrid: "hybrid" }
        var o: [String: JSONValue] = [
            "taskID": .string(task.id), "sourcePath": .string(task.params.sourcePath),
            "pieceSize": .int(Int64(task.params.options.pieceSize)), "private": .bool(task.params.options.isPrivate),
            "timeAdded": time(task.timeAdded), "status": .string(task.status.rawValue),
            "format": .string(format),
        ]
        if !task.params.options.comment.isEmpty { o["comment"] = .string(task.params.options.comment) }
        if let path = task.params.torrentFilePath { o["torrentFilePath"] = .string(path) }
        if !task.params.options.source.isEmpty { o["source"] = .string(task.params.options.source) }
        let trackers = task.params.options.trackers.flatMap { $0 }
        if !trackers.isEmpty || v53 { o["trackers"] = .array((trackers.isEmpty ? [""] : trackers).map { .string($0) }) }
        let seeds = task.params.options.urlSeeds
        if !seeds.isEmpty || v53 { o["urlSeeds"] = .array((seeds.isEmpty ? [""] : seeds).map { .string($0) }) }
        if v53 { o["ignoreDotfiles"] = .bool(task.params.options.ignoreDotfiles) }
        if let started = task.timeStarted { o["timeStarted"] = time(started) }
        if let finished = task.timeFinished { o["timeFinished"] = time(finished) }
        switch task.status {
        case .failed: o["errorMessage"] = .string(task.error ?? "")
        case .finished: o["pieceSize"] = .int(Int64(task.pieceSize ?? 0))
        case .running: o["progress"] = .int(Int64(task.percent))
        case .queued: break
        }
        return .object(o)
    }

    /// The folder or file to make a torrent of: anywhere, as in qBittorrent, unless `--allowed-paths` confines it
    /// (a torrent of a file is a way to read it).
    static func sourcePath(_ source: String, _ paths: ServerPaths) throws -> String {
        do { return try paths.savePath(source) } catch { throw QBitError.conflict("\(error)") }
    }
}
