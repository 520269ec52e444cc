import Foundation
import Store
import TorrentEngine

/// Store writes that the engine's actions wait on: when SQLite refuses one, the engine does not act on the change,
/// and the failure is logged where the user reads it (`log/main`).
extension TorrentService {
    /// Stores that a finished torrent leaves its download path; false (logged) when SQLite refused, and then the
    /// torrent stays where it is: moved without the record, a restart would bring it back to the download path.
    func leaveDownloadPath(_ record: TorrentRecord) async -> Bool {
        do {
            try await store.updateTorrent(record.id) { $0.downloadPath = nil }
            return true
        } catch {
            logger.error("could not store the end of \(record.id)'s download path: \(error)")
            log.add("Torrent \"\(record.name)\" stays in \(record.downloadPath ?? ""): its move to "
                    + "\(record.savePath) could not be stored (\(error)). Set its location once the database "
                    + "can be written.", kind: .critical)
            return false
        }
    }

    /// Deletes the row of a torrent the engine refused. When SQLite refuses the delete too, the row is kept in
    /// `refusedRows` (logged) and deleted before the next add, so it is not restored as a torrent nobody added.
    func dropRow(_ id: TorrentID) async {
        do { try await store.deleteTorrent(id) } catch {
            refusedRows.insert(id)
            logger.error("could not delete the row of refused torrent \(id): \(error)")
            log.add("The record of a torrent that could not be added (\(id)) could not be deleted (\(error)); it is "
                    + "deleted again with the next add.", kind: .warning)
        }
    }

    /// Deletes the rows `dropRow` could not; throws (and keeps them) while SQLite still refuses.
    func dropRefusedRows() async throws {
        for id in refusedRows.sorted() {
            try await store.deleteTorrent(id)
            refusedRows.remove(id)
        }
    }
}
