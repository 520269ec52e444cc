import CLibtorrent

/// The session pointer, shared with the C callbacks; only the engine actor calls through it.
struct SessionPointer: @unchecked Sendable {
    let raw: OpaquePointer
}

/// Collects what a C callback reports, for the duration of one call.
final class Collector<Element> {
    var items: [Element] = []
    static func from(_ context: UnsafeMutableRawPointer?) -> Collector { Unmanaged.fromOpaque(context!).takeUnretainedValue() }
}

func takeCString(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
    guard let pointer else { return "" }
    defer { qbt_free(pointer) }
    return String(cString: pointer)
}

func idString<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
}

func withIDBuffer(_ body: (UnsafeMutablePointer<CChar>) -> qbt_result) -> (qbt_result, TorrentID) {
    var buffer = [CChar](repeating: 0, count: Int(QBT_ID_LEN))
    let result = buffer.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    return (result, String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
}

extension TorrentStatus {
    init(_ s: qbt_status) {
        self.init(
            id: idString(s.id), name: String(cString: s.name), savePath: String(cString: s.save_path),
            infoHashV1: String(cString: s.info_hash_v1), infoHashV2: String(cString: s.info_hash_v2),
            error: String(cString: s.error), currentTracker: String(cString: s.current_tracker),
            comment: String(cString: s.comment), creator: String(cString: s.creator),
            contentPath: String(cString: s.content_path), rootPath: String(cString: s.root_path),
            state: State(rawValue: s.state) ?? .unknown, hasMetadata: s.has_metadata, paused: s.paused,
            autoManaged: s.auto_managed, sequential: s.sequential, uploadMode: s.upload_mode,
            superSeeding: s.super_seeding, isFinished: s.is_finished, isSeeding: s.is_seeding,
            isPrivate: s.is_private, progress: Double(s.progress), distributedCopies: Double(s.distributed_copies),
            downloadRate: Int(s.download_rate), uploadRate: Int(s.upload_rate), numSeeds: Int(s.num_seeds),
            numPeers: Int(s.num_peers), numComplete: Int(s.num_complete), numIncomplete: Int(s.num_incomplete),
            numConnections: Int(s.num_connections), connectionsLimit: Int(s.connections_limit),
            queuePosition: Int(s.queue_position), numPieces: Int(s.num_pieces), piecesHave: Int(s.pieces_have),
            pieceLength: Int(s.piece_length), trackersCount: Int(s.trackers_count),
            nextAnnounce: Int(s.next_announce), totalSize: s.total_size, totalWanted: s.total_wanted,
            totalWantedDone: s.total_wanted_done, totalDone: s.total_done, allTimeDownload: s.all_time_download,
            allTimeUpload: s.all_time_upload, sessionDownload: s.session_download, sessionUpload: s.session_upload,
            totalFailed: s.total_failed, totalRedundant: s.total_redundant, addedTime: s.added_time,
            completedTime: s.completed_time, lastSeenComplete: s.last_seen_complete, lastDownload: s.last_download,
            lastUpload: s.last_upload, creationDate: s.creation_date, activeDuration: s.active_duration,
            seedingDuration: s.seeding_duration, finishedDuration: s.finished_duration,
            needSaveResume: s.need_save_resume, lastActivitySteady: s.last_activity_steady)
    }
}

extension TorrentFile {
    init(_ f: qbt_file) {
        self.init(
            index: Int(f.index), diskPath: String(cString: f.path), size: f.size, offset: f.offset,
            downloaded: f.downloaded, priority: Int(f.priority),
            pieceRange: Int(f.first_piece)...Int(max(f.first_piece, f.last_piece)))
    }
}

/// Raw events straight off the alert queue, before the actor sorts them.
enum RawEvent {
    case event(EngineEvent)
    case status(TorrentStatus)
    case added(AddedTorrent)
    case addFailed(TorrentID, EngineError)
    case resumeData(TorrentID, [UInt8])
    case resumeDataFailed(TorrentID, String, notModified: Bool)
    case readPiece(TorrentID, Int, [UInt8]?, String)
    case alertsDropped(String)
}

extension RawEvent {
    init?(_ e: qbt_event) {
        let id = idString(e.id)
        let message = String(cString: e.message)
        let piece = Int(e.piece)
        switch e.kind {
        case QBT_EVENT_ADDED:
            var added = AddedTorrent(id: id)
            let lines = e.data.map { String(decoding: UnsafeBufferPointer(start: $0, count: e.size), as: UTF8.self) } ?? ""
            for line in lines.split(separator: "\n") where line.count > 2 {
                let url = String(line.dropFirst(2))
                if line.hasPrefix("t ") { added.trackers.append(url) } else if line.hasPrefix("w ") { added.webSeeds.append(url) }
            }
            self = .added(added)
        case QBT_EVENT_ADD_FAILED:
            self = .addFailed(id, e.state == 1 ? .duplicate(id) : .failed(message))
        case QBT_EVENT_METADATA_RECEIVED: self = .event(.metadataReceived(id))
        case QBT_EVENT_FINISHED: self = .event(.finished(id))
        case QBT_EVENT_REMOVED: self = .event(.removed(id))
        case QBT_EVENT_FILES_DELETED: self = .event(.filesDeleted(id))
        case QBT_EVENT_DELETE_FAILED: self = .event(.deleteFailed(id, message))
        case QBT_EVENT_PIECE_FINISHED: self = .event(.pieceFinished(id, piece: piece))
        case QBT_EVENT_HASH_FAILED: self = .event(.hashFailed(id, piece: piece))
        case QBT_EVENT_STATE_CHANGED: self = .event(.stateChanged(id, TorrentStatus.State(rawValue: e.state) ?? .unknown))
        case QBT_EVENT_PAUSED: self = .event(.paused(id))
        case QBT_EVENT_RESUMED: self = .event(.resumed(id))
        case QBT_EVENT_CHECKED: self = .event(.checked(id))
        case QBT_EVENT_TORRENT_ERROR: self = .event(.torrentError(id, message))
        case QBT_EVENT_FILE_ERROR: self = .event(.fileError(id, Self.fault(e, message)))
        case QBT_EVENT_RESUME_REJECTED: self = .event(.resumeRejected(id, Self.fault(e, message)))
        case QBT_EVENT_LISTEN_SUCCEEDED: self = .event(.listening(port: Int(e.state)))
        case QBT_EVENT_LISTEN_FAILED: self = .event(.listenFailed(message))
        case QBT_EVENT_STORAGE_MOVED: self = .event(.storageMoved(id))
        case QBT_EVENT_STORAGE_MOVE_FAILED: self = .event(.storageMoveFailed(id, message))
        case QBT_EVENT_ALERTS_DROPPED: self = .alertsDropped(message)
        case QBT_EVENT_FILE_RENAMED: self = .event(.fileRenamed(id, file: piece, path: message))
        case QBT_EVENT_FILE_COMPLETED: self = .event(.fileCompleted(id, file: piece))
        case QBT_EVENT_FILE_RENAME_FAILED: self = .event(.fileRenameFailed(id, file: piece, message))
        case QBT_EVENT_TRACKER_STATUS:
            let url = e.data.map { String(decoding: UnsafeBufferPointer(start: $0, count: e.size), as: UTF8.self) } ?? ""
            self = .event(.trackerStatus(id, url: url, TrackerEntry.Status(rawValue: Int(e.state)) ?? .notContacted, message))
        case QBT_EVENT_PEER_BLOCKED: self = .event(.peerBlocked(ip: message))
        case QBT_EVENT_RESUME_DATA:
            self = .resumeData(id, e.data.map { Array(UnsafeBufferPointer(start: $0, count: e.size)) } ?? [])
        case QBT_EVENT_RESUME_DATA_FAILED: self = .resumeDataFailed(id, message, notModified: e.state == 1)
        case QBT_EVENT_READ_PIECE:
            self = .readPiece(id, piece, e.data.map { Array(UnsafeBufferPointer(start: $0, count: e.size)) }, message)
        default: return nil
        }
    }

    /// A FILE_ERROR's or RESUME_REJECTED's operation, errno and message.
    static func fault(_ e: qbt_event, _ message: String) -> FileFault {
        let operation: FileFault.Operation = switch Int(e.piece) {
        case Int(QBT_FILE_OP_READ): .read
        case Int(QBT_FILE_OP_OPEN): .open
        case Int(QBT_FILE_OP_WRITE): .write
        default: .other
        }
        return FileFault(operation: operation, code: e.state >= 0 ? e.state : nil, message: message)
    }
}
