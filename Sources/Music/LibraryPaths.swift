import Foundation
import GRDB

/// The library database clients download names files relative to the music folders, never by the server's absolute
/// paths: with one folder, the path inside it; with several, the folder's name first ("Music/Artist/01.mp3"), made
/// unique with " (2)", " (3)"… when two folders share a name. Anything outside every folder keeps only its file name
/// (under "tracks-<id>/" or "playlists-<id>/").
enum LibraryPaths {
    static func relativize(_ db: DatabaseQueue, folders: [String]) throws {
        let labels = self.labels(folders)
        try db.write { db in
            for table in ["tracks", "playlists"] {
                let rows = try Row.fetchAll(db, sql: "SELECT id, path FROM \(table)")
                // Two passes: "|<id>|<new path>" first (unique whatever the new paths), then the prefix goes, so no
                // UNIQUE clash while paths change one by one.
                for row in rows {
                    let id: Int64 = row["id"], path: String = row["path"]
                    let new = relative(path, folders: folders, labels: labels)
                        ?? "\(table)-\(id)/" + URL(fileURLWithPath: path).lastPathComponent
                    try db.execute(sql: "UPDATE \(table) SET path = ? WHERE id = ?", arguments: ["|\(id)|" + new, id])
                }
                try db.execute(sql: "UPDATE \(table) SET path = substr(path, instr(substr(path, 2), '|') + 2)")
            }
        }
        try db.writeWithoutTransaction { try $0.execute(sql: "VACUUM") }  // the old paths leave the free pages too
    }

    /// The path inside its folder (with the folder's label); nil when no folder holds it.
    static func relative(_ path: String, folders: [String], labels: [String]) -> String? {
        for (folder, label) in zip(folders, labels) {
            for root in Set([folder, URL(fileURLWithPath: folder).resolvingSymlinksInPath().path]) {
                let prefix = root.hasSuffix("/") ? root : root + "/"
                guard path.hasPrefix(prefix) else { continue }
                let inside = String(path.dropFirst(prefix.count))
                return label.isEmpty ? inside : label + "/" + inside
            }
        }
        return nil
    }

    /// "" for a single folder; else each folder's name, unique.
    static func labels(_ folders: [String]) -> [String] {
        guard folders.count > 1 else { return folders.map { _ in "" } }
        var seen: [String: Int] = [:]
        return folders.map { folder in
            let name = URL(fileURLWithPath: folder).lastPathComponent
            let n = seen[name, default: 0] + 1
            seen[name] = n
            return n == 1 ? name : "\(name) (\(n))"
        }
    }
}
