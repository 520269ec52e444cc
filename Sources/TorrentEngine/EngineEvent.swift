import Foundation

/// A torrent id: the v1 info-hash, or the truncated v2 one for v2 and hybrid torrents, as 40 lowercase hex digits.
public typealias TorrentID = String

/// What the session tells about itself, in the order libtorrent raised it.
public enum EngineEvent: Sendable, Equatable {
    case added(TorrentID)
    case metadataReceived(TorrentID)
    case finished(TorrentID)
    case removed(TorrentID)
    case filesDeleted(TorrentID)
    case deleteFailed(TorrentID, String)
    case pieceFinished(TorrentID, piece: Int)
    /// `forgetPieces` forgot these pieces: handed out after every event libtorrent raised before the forget (a piece
    /// that finished just before it comes first), so a subscriber that keeps pieces by events keeps them right.
    case piecesForgotten(TorrentID, pieces: [Int])
    case hashFailed(TorrentID, piece: Int)
    case stateChanged(TorrentID, TorrentStatus.State)
    case paused(TorrentID)
    case resumed(TorrentID)
    case checked(TorrentID)
    case torrentError(TorrentID, String)
    case fileError(TorrentID, FileFault)
    /// The fast-resume data did not match the files on disk (they are missing or shorter): libtorrent checks the whole
    /// torrent next, and would download again what it does not find.
    case resumeRejected(TorrentID, FileFault)
    case listening(port: Int)
    case listenFailed(String)
    case storageMoved(TorrentID)
    case storageMoveFailed(TorrentID, String)
    case fileRenamed(TorrentID, file: Int, path: String)
    case fileRenameFailed(TorrentID, file: Int, String)
    /// Every piece of one file is in (libtorrent's index).
    case fileCompleted(TorrentID, file: Int)
    /// A tracker's status after an announce went out (a reply, a warning or an error), with its message.
    case trackerStatus(TorrentID, url: String, TrackerEntry.Status, String)
    case peerBlocked(ip: String)
}

extension EngineEvent {
    /// The torrent the event is about; nil for session-level events.
    public var torrentID: TorrentID? {
        switch self {
        case .added(let id), .metadataReceived(let id), .finished(let id), .removed(let id), .filesDeleted(let id),
             .deleteFailed(let id, _), .pieceFinished(let id, _), .piecesForgotten(let id, _), .hashFailed(let id, _), .stateChanged(let id, _),
             .paused(let id), .resumed(let id), .checked(let id), .torrentError(let id, _), .fileError(let id, _),
             .resumeRejected(let id, _), .storageMoved(let id), .storageMoveFailed(let id, _), .fileRenamed(let id, _, _),
             .fileRenameFailed(let id, _, _), .trackerStatus(let id, _, _, _), .fileCompleted(let id, _):
            id
        case .listening, .listenFailed, .peerBlocked:
            nil
        }
    }
}

/// A file error libtorrent reported: what it was doing, the system's error number, and its message (with the path).
public struct FileFault: Sendable, Equatable, Codable, CustomStringConvertible {
    public enum Operation: String, Sendable, Equatable, Codable { case read, open, write, other }
    public var operation: Operation
    /// errno, or nil when the error is not the system's.
    public var code: Int32?
    public var message: String

    public init(operation: Operation, code: Int32?, message: String) {
        self.operation = operation
        self.code = code
        self.message = message
    }

    public var description: String { message }
    /// A full disk: libtorrent stops downloading (upload mode), which a start or the free-space guard undoes.
    public var isDiskFull: Bool { code == ENOSPC }
    /// The files are not there (a vanished mount, a deleted folder): qBittorrent's `missingFiles`.
    public var isMissingFiles: Bool { code == ENOENT || code == ENOTDIR || code == ENODEV || code == ESTALE }
}
