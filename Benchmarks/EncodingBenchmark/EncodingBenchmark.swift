import Foundation
import MemoryEngine
import QBTCore
import Store
import SystemKit
import TorrentEngine
import WebAPI

/// `qbtd-encode-benchmark N` (run by `make bench`): the time to encode a full `sync/maindata` of N torrents, as
/// qbtd encodes it (rows once, then shared) and as one dictionary per torrent would. Over the in-memory engine, in a
/// temporary directory; prints figures, asserts nothing.
public enum EncodingBenchmark {
    public static func run(torrents count: Int, identity: Identity = .qBittorrent5_1) async throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("qbtd-encode-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let paths = try ServerPaths(dataDirectory: dir.path)
        let store = try SQLiteStore(path: paths.databasePath)
        let service = try await TorrentService(settings: try await ServerSettings(store: store, paths: paths), store: store,
                                               engine: MemoryEngine())
        let torrents = try (0..<count).map {
            try ParsedTorrent(.magnet("magnet:?xt=urn:btih:\(String(format: "%040x", $0 + 1))&dn=benchmark-\($0)"))
        }
        _ = await service.add(torrents, options: AddOptions())
        let board = await service.currentBoard()
        let clock = ContinuousClock()

        let rows = RowCache(identity: identity)
        let rowsTime = clock.measure { _ = rows.rows(for: board) }
        var bytes = 0
        var full: [Duration] = []
        for _ in 0..<5 {
            full.append(clock.measure {
                var state = MainDataSync()
                bytes = state.answer(rid: 0, data: MainData(rows: rows.rows(for: board), rest: [:])).count
            })
        }
        var dictionaryBytes = 0
        let dictionaryTime = clock.measure {
            var all: [String: JSONValue] = [:]
            for id in board.order {
                guard let view = board.entries[id]?.view else { continue }
                all[id] = .object(TorrentInfo(view, identity: identity).jsonObject(identity: identity, includeHash: false))
            }
            dictionaryBytes = JSONValue.object(["torrents": .object(all)]).serialized().count
        }
        func ms(_ d: Duration) -> String { String(format: "%.1f ms", Double(d.components.attoseconds) / 1e15 + Double(d.components.seconds) * 1000) }
        return """
            | \(count) torrents | time | bytes |
            |---|---:|---:|
            | every row encoded (once, at start) | \(ms(rowsTime)) | |
            | a full maindata from the encoded rows (median of 5) | \(ms(full.sorted()[2])) | \(bytes) |
            | a full maindata as one dictionary per torrent | \(ms(dictionaryTime)) | \(dictionaryBytes) |
            """
    }
}
