import GRDB

extension MusicLibrary {
    /// The library as a browser lists it: what `/music/db` holds, without the paths.
    public struct Listing: Sendable {
        public struct Artist: Sendable { public let id: Int64; public let name: String }
        public struct Album: Sendable {
            public let id: Int64, title: String, artist: String, artistID: Int64?, year: String, trackCount: Int
        }
        public struct Track: Sendable {
            public let id: Int64, title: String, artist: String, artistID: Int64?, album: String, albumID: Int64?
            public let trackNumber: Int?, discNumber: Int?, duration: Double, error: String?
        }
        public let version: Int
        public let artists: [Artist]
        public let albums: [Album]
        public let tracks: [Track]
    }

    /// One consistent read of artists, albums and tracks (GRDB's reader, off the cooperative pool).
    public func listing() async throws -> Listing {
        let version = self.version
        return try await library.read { db in
            let artists = try Row.fetchAll(db, sql: "SELECT id, name FROM artists ORDER BY name COLLATE NOCASE").map {
                Listing.Artist(id: $0["id"], name: $0["name"])
            }
            let albums = try Row.fetchAll(db, sql: """
                SELECT a.id, a.title, a.album_artist, a.artist_id, a.year, COUNT(t.id) AS n
                FROM albums a LEFT JOIN tracks t ON t.album_id = a.id
                GROUP BY a.id ORDER BY a.album_artist COLLATE NOCASE, a.year, a.title COLLATE NOCASE
                """).map {
                Listing.Album(id: $0["id"], title: $0["title"], artist: $0["album_artist"], artistID: $0["artist_id"],
                              year: $0["year"], trackCount: $0["n"])
            }
            let tracks = try Row.fetchAll(db, sql: """
                SELECT id, title, artist, album, album_id, artist_id, track_number, disc_number, duration, error, path
                FROM tracks ORDER BY album_id, disc_number, track_number, title COLLATE NOCASE
                """).map { row -> Listing.Track in
                let title: String = row["title"]
                let path: String = row["path"]
                return Listing.Track(id: row["id"], title: title.isEmpty ? Self.fileTitle(path) : title,
                                     artist: row["artist"], artistID: row["artist_id"], album: row["album"],
                                     albumID: row["album_id"], trackNumber: row["track_number"],
                                     discNumber: row["disc_number"], duration: row["duration"], error: row["error"])
            }
            return Listing(version: version, artists: artists, albums: albums, tracks: tracks)
        }
    }

    /// An untagged track's name: its file name without `.mp3` (never the folder it lies in).
    static func fileTitle(_ path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name.lowercased().hasSuffix(".mp3") ? String(name.dropLast(4)) : name
    }
}
