/// What the engine refuses, with libtorrent's own words where it gave any.
public enum EngineError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidTorrent(String)
    case duplicate(TorrentID)
    case notFound(TorrentID)
    case invalidArgument(String)
    case failed(String)

    public var description: String {
        switch self {
        case .invalidTorrent(let why): "not a valid torrent: \(why)"
        case .duplicate(let id): "torrent \(id) is already added"
        case .notFound(let id): "no torrent \(id)"
        case .invalidArgument(let why): why
        case .failed(let why): why
        }
    }
}
