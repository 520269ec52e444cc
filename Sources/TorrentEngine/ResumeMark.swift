/// The part of a status whose change is worth a fast-resume save at once: what is on disk and the torrent's state;
/// not its transfer counters, times, rates or peers, which change every tick.
struct ResumeMark: Equatable {
    let piecesHave: Int
    let totalDone: Int64
    let state: TorrentStatus.State
    let paused: Bool
    let autoManaged: Bool
    let sequential: Bool
    let superSeeding: Bool
    let uploadMode: Bool
    let hasMetadata: Bool
    let queuePosition: Int
    let savePath: String
    let name: String
    let error: String

    init(_ s: TorrentStatus) {
        piecesHave = s.piecesHave
        totalDone = s.totalDone
        state = s.state
        paused = s.paused
        autoManaged = s.autoManaged
        sequential = s.sequential
        superSeeding = s.superSeeding
        uploadMode = s.uploadMode
        hasMetadata = s.hasMetadata
        queuePosition = s.queuePosition
        savePath = s.savePath
        name = s.name
        error = s.error
    }
}
