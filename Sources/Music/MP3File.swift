import CMP3
import Foundation

/// Every audio frame of an MP3 file: where it starts, how long it is, how many samples it holds. ID3 tags and the
/// Xing/Info frame are not in it, so a range of frames is exactly audio.
public struct FrameIndex: Sendable, Equatable {
    public var sampleRate: Int
    public var offsets: [Int64]
    public var sizes: [Int32]
    public var samples: [Int32]

    /// Packed for the index cache: three little-endian arrays.
    public var blobs: (Data, Data, Data) {
        (offsets.withUnsafeBytes { Data($0) }, sizes.withUnsafeBytes { Data($0) }, samples.withUnsafeBytes { Data($0) })
    }

    public init(sampleRate: Int, offsets: [Int64], sizes: [Int32], samples: [Int32]) {
        self.sampleRate = sampleRate
        self.offsets = offsets
        self.sizes = sizes
        self.samples = samples
    }

    public init?(sampleRate: Int, blobs: (Data, Data, Data)) {
        func array<T>(_ data: Data, _: T.Type) -> [T] {
            data.withUnsafeBytes { Array($0.bindMemory(to: T.self)) }
        }
        offsets = array(blobs.0, Int64.self)
        sizes = array(blobs.1, Int32.self)
        samples = array(blobs.2, Int32.self)
        self.sampleRate = sampleRate
        guard offsets.count == sizes.count, sizes.count == samples.count, sampleRate > 0 else { return nil }
    }
}

/// Tags as the library keeps them.
public struct TrackTags: Sendable, Equatable {
    public var title = "", artist = "", album = "", albumArtist = "", year = "", genre = ""
    public var trackNumber: Int?
    public var discNumber: Int?
}

/// What libmpg123 makes of a file.
public struct MP3Scan: Sendable {
    public var sampleRate = 0
    public var channels = 0
    public var bitrate = 0
    public var vbr = false
    public var totalSamples: Int64 = 0
    public var tags = TrackTags()
    public var index: FrameIndex?
    /// Set when the file is not valid MP3.
    public var error: String?

    public var duration: Double { sampleRate > 0 ? Double(totalSamples) / Double(sampleRate) : 0 }

    /// Blocking (reads the whole file): call it off the cooperative pool.
    public static func read(_ path: String) -> MP3Scan {
        var info = qbt_mp3_info()
        _ = qbt_mp3_scan(path, true, &info)
        defer { qbt_mp3_free(&info) }
        func text(_ p: UnsafeMutablePointer<CChar>?) -> String {
            p.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
        }
        var scan = MP3Scan()
        scan.error = info.error.map { String(cString: $0) }
        scan.sampleRate = Int(info.sample_rate)
        scan.channels = Int(info.channels)
        scan.bitrate = Int(info.bitrate)
        scan.vbr = info.vbr
        scan.totalSamples = info.total_samples
        scan.tags = TrackTags(title: text(info.title), artist: text(info.artist), album: text(info.album),
                              albumArtist: text(info.album_artist), year: text(info.year),
                              genre: Genres.name(text(info.genre)),
                              trackNumber: leadingNumber(text(info.track)), discNumber: leadingNumber(text(info.disc)))
        if scan.error == nil, let offsets = info.offsets, let sizes = info.sizes, let samples = info.samples {
            let n = Int(info.frame_count)
            scan.index = FrameIndex(sampleRate: scan.sampleRate, offsets: Array(UnsafeBufferPointer(start: offsets, count: n)),
                                    sizes: Array(UnsafeBufferPointer(start: sizes, count: n)),
                                    samples: Array(UnsafeBufferPointer(start: samples, count: n)))
        }
        return scan
    }

    /// `3/12` → 3.
    static func leadingNumber(_ text: String) -> Int? { Int(text.prefix { $0.isNumber }) }
}

/// ID3 genres given as numbers (`(17)`, `17`, `(17)Rock`) made names; names stay as they are.
enum Genres {
    static let v1 = ["Blues", "Classic Rock", "Country", "Dance", "Disco", "Funk", "Grunge", "Hip-Hop", "Jazz", "Metal",
                     "New Age", "Oldies", "Other", "Pop", "R&B", "Rap", "Reggae", "Rock", "Techno", "Industrial",
                     "Alternative", "Ska", "Death Metal", "Pranks", "Soundtrack", "Euro-Techno", "Ambient", "Trip-Hop",
                     "Vocal", "Jazz+Funk", "Fusion", "Trance", "Classical", "Instrumental", "Acid", "House", "Game",
                     "Sound Clip", "Gospel", "Noise", "AlternRock", "Bass", "Soul", "Punk", "Space", "Meditative",
                     "Instrumental Pop", "Instrumental Rock", "Ethnic", "Gothic", "Darkwave", "Techno-Industrial",
                     "Electronic", "Pop-Folk", "Eurodance", "Dream", "Southern Rock", "Comedy", "Cult", "Gangsta",
                     "Top 40", "Christian Rap", "Pop/Funk", "Jungle", "Native American", "Cabaret", "New Wave",
                     "Psychadelic", "Rave", "Showtunes", "Trailer", "Lo-Fi", "Tribal", "Acid Punk", "Acid Jazz", "Polka",
                     "Retro", "Musical", "Rock & Roll", "Hard Rock"]

    static func name(_ raw: String) -> String {
        var text = raw
        if text.hasPrefix("("), let close = text.firstIndex(of: ")") {
            let number = Int(text[text.index(after: text.startIndex)..<close])
            let rest = String(text[text.index(after: close)...])
            if !rest.isEmpty { return rest }
            text = number.map(String.init) ?? text
        }
        if let n = Int(text) { return n >= 0 && n < v1.count ? v1[n] : text }
        return text
    }
}
