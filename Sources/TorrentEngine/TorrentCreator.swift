import CLibtorrent

/// Makes .torrent files from data on disk (tests use it for seeds; the torrent creator API will too).
public enum TorrentCreator {
    /// Hashes the file or directory at `path`. A `pieceSize` of 0 lets libtorrent choose.
    public static func create(path: String, pieceSize: Int = 0, tracker: String? = nil) throws -> [UInt8] {
        var error: UnsafeMutablePointer<CChar>?
        let (result, items) = collect([UInt8].self) { ctx in
            withOptionalCString(tracker) { trackerPointer in
                qbt_create_torrent(path, Int32(clamping: pieceSize), trackerPointer, { ctx, data, size in
                    Collector<[UInt8]>.from(ctx).items.append(Array(UnsafeBufferPointer(start: data, count: size)))
                }, ctx, &error)
            }
        }
        guard result == QBT_OK, let bytes = items.first else {
            throw EngineError.invalidArgument("cannot create a torrent of \(path): \(takeCString(error))")
        }
        return bytes
    }
}

/// The versions of the native libraries underneath, for `app/buildInfo`.
public enum LibraryVersions {
    public static var libtorrent: String { String(cString: qbt_libtorrent_version()) }
    public static var boost: String { String(cString: qbt_boost_version()) }
    public static var openssl: String { String(cString: qbt_openssl_version()) }
}
