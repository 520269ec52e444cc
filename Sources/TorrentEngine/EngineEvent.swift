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
    case hashFailed(TorrentID, piece: Int)
    case stateChanged(TorrentID, TorrentStatus.State)
    case paused(TorrentID)
    case resumed(TorrentID)
    case checked(TorrentID)
    case torrentError(TorrentID, String)
    case fileError(TorrentID, String)
    case listening(port: Int)
    case listenFailed(String)
    case storageMoved(TorrentID)
    case storageMoveFailed(TorrentID, String)
    case fileRenamed(TorrentID, file: Int, path: String)
    case fileRenameFailed(TorrentID, file: Int, String)
    case trackerError(TorrentID, String)
    case peerBlocked(ip: String)
}
