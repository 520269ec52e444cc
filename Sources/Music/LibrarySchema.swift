import GRDB

/// The library database clients download (`/music/db`), and qbtd's private frame-index cache beside it.
enum LibrarySchema {
    static var library: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1: tracks, albums, artists, playlists") { db in
            try db.execute(sql: """
                CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE artists (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
                CREATE TABLE albums (id INTEGER PRIMARY KEY, title TEXT NOT NULL, album_artist TEXT NOT NULL,
                                     year TEXT NOT NULL DEFAULT '', artist_id INTEGER REFERENCES artists(id),
                                     UNIQUE (title, album_artist));
                CREATE TABLE tracks (
                    id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, size INTEGER NOT NULL, mtime INTEGER NOT NULL,
                    title TEXT NOT NULL DEFAULT '', artist TEXT NOT NULL DEFAULT '', album TEXT NOT NULL DEFAULT '',
                    album_artist TEXT NOT NULL DEFAULT '', track_number INTEGER, disc_number INTEGER,
                    year TEXT NOT NULL DEFAULT '', genre TEXT NOT NULL DEFAULT '', duration REAL NOT NULL DEFAULT 0,
                    samples INTEGER NOT NULL DEFAULT 0, sample_rate INTEGER NOT NULL DEFAULT 0,
                    channels INTEGER NOT NULL DEFAULT 0, bitrate INTEGER NOT NULL DEFAULT 0, vbr INTEGER NOT NULL DEFAULT 0,
                    album_id INTEGER REFERENCES albums(id), artist_id INTEGER REFERENCES artists(id),
                    error TEXT);  -- set when the file is not valid MP3
                CREATE INDEX tracks_album ON tracks(album_id);
                CREATE TABLE playlists (id INTEGER PRIMARY KEY, name TEXT NOT NULL, path TEXT NOT NULL UNIQUE,
                                        size INTEGER NOT NULL, mtime INTEGER NOT NULL);
                CREATE TABLE playlist_items (playlist_id INTEGER NOT NULL REFERENCES playlists(id) ON DELETE CASCADE,
                                             position INTEGER NOT NULL, track_id INTEGER NOT NULL,
                                             PRIMARY KEY (playlist_id, position));
                INSERT INTO meta VALUES ('version', '0'), ('protocol_version', '1');
                """)
        }
        return m
    }

    static var frameIndex: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1: frame index") { db in
            try db.execute(sql: """
                CREATE TABLE frames (path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime INTEGER NOT NULL,
                                     sample_rate INTEGER NOT NULL, offsets BLOB NOT NULL, sizes BLOB NOT NULL,
                                     samples BLOB NOT NULL);
                """)
        }
        return m
    }
}
