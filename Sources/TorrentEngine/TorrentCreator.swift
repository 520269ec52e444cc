import CCrypto
import CLibtorrent

/// Makes .torrent files from data on disk (the torrent creator API, and tests' seeds).
public enum TorrentCreator {
    /// Hashes the file or directory at `path` (tests make seeds with it). A `pieceSize` of 0 lets libtorrent choose.
    public static func create(path: String, pieceSize: Int = 0) throws -> [UInt8] {
        var options = TorrentCreationOptions()
        options.pieceSize = pieceSize
        return try create(path: path, options: options) { _, _ in true }.torrent
    }
}

/// What qBittorrent's torrent creator takes (`torrentcreator/addTask`).
public struct TorrentCreationOptions: Sendable, Equatable {
    public enum Format: Int32, Sendable { case hybrid = 0, v1 = 1, v2 = 2 }
    public var format = Format.hybrid
    /// 0: libtorrent chooses.
    public var pieceSize = 0
    public var isPrivate = false
    public var comment = ""
    public var source = ""
    /// Tiers of tracker URLs.
    public var trackers: [[String]] = []
    public var urlSeeds: [String] = []
    /// 5.3: files and folders whose names start with `.` are left out.
    public var ignoreDotfiles = false

    public init() {}
}

extension TorrentCreator {
    final class Run {
        var bytes: [UInt8] = []
        let progress: (Int, Int) -> Bool
        init(progress: @escaping (Int, Int) -> Bool) { self.progress = progress }
    }

    /// Hashes `path` into a .torrent, reporting (pieces done, pieces in all) after each piece; `progress`
    /// returning false cancels. Blocking: call it off the cooperative pool. Returns the bytes and the piece size.
    public static func create(path: String, options: TorrentCreationOptions,
                              progress: @escaping (Int, Int) -> Bool) throws -> (torrent: [UInt8], pieceSize: Int) {
        let run = Run(progress: progress)
        let context = Unmanaged.passRetained(run)
        defer { context.release() }
        var error: UnsafeMutablePointer<CChar>?
        var pieceSize: Int32 = 0
        let trackers = options.trackers.map { $0.joined(separator: "\n") }.joined(separator: "\n\n")
        let result = options.comment.withCString { comment in
            options.source.withCString { source in
                trackers.withCString { trackerText in
                    options.urlSeeds.joined(separator: "\n").withCString { seeds in
                        var c = qbt_create_options(piece_size: Int32(clamping: options.pieceSize), format: options.format.rawValue,
                                                   is_private: options.isPrivate, comment: comment, source: source,
                                                   trackers: trackerText, url_seeds: seeds,
                                                   ignore_dotfiles: options.ignoreDotfiles)
                        return qbt_create_torrent_ex(path, &c, { ctx, done, total in
                            Unmanaged<Run>.fromOpaque(ctx!).takeUnretainedValue().progress(Int(done), Int(total))
                        }, { ctx, data, size in
                            Unmanaged<Run>.fromOpaque(ctx!).takeUnretainedValue().bytes = Array(UnsafeBufferPointer(start: data, count: size))
                        }, context.toOpaque(), &pieceSize, &error)
                    }
                }
            }
        }
        guard result == QBT_OK else { throw EngineError.invalidArgument(takeCString(error)) }
        return (run.bytes, Int(pieceSize))
    }
}

/// The versions of the native libraries underneath, for `app/buildInfo`.
public enum LibraryVersions {
    public static var libtorrent: String { String(cString: qbt_libtorrent_version()) }
    public static var boost: String { String(cString: qbt_boost_version()) }
    public static var openssl: String { String(cString: qbt_openssl_version()) }
}
