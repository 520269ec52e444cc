import Store
import TorrentEngine

/// One torrent as the API shows it: what is stored about it joined with what the engine says now.
public struct TorrentView: Sendable {
    public var record: TorrentRecord
    public var tags: [String]
    public var status: TorrentStatus
    public var state: QBTState
    public var trackers: [String] = []
    public var queueingEnabled = false

    public var id: TorrentID { record.id }
    public var name: String { !record.name.isEmpty ? record.name : status.name.isEmpty ? record.id : status.name }
}
