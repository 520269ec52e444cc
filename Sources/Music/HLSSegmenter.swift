import CCrypto
import Foundation

/// Packed-audio HLS cut from a frame index, on the fly: segment n holds the whole frames that start in
/// [6n, 6n + 6) seconds, prefixed with the ID3 PRIV timestamp tag; durations come from sample counts, in integers.
public struct HLSSegmenter: Sendable {
    public struct Segment: Sendable, Equatable {
        public var firstFrame: Int
        public var frameCount: Int
        public var startSample: Int64
        public var sampleCount: Int64
    }

    public static let seconds = 6
    public let index: FrameIndex
    public let segments: [Segment]

    public init(_ index: FrameIndex) {
        self.index = index
        let span = Int64(Self.seconds * index.sampleRate)
        var segments: [Segment] = []
        var start: Int64 = 0
        for (i, count) in index.samples.enumerated() {
            let n = Int(start / span)
            if n >= segments.count {
                segments.append(Segment(firstFrame: i, frameCount: 0, startSample: start, sampleCount: 0))
            }
            segments[segments.count - 1].frameCount += 1
            segments[segments.count - 1].sampleCount += Int64(count)
            start += Int64(count)
        }
        self.segments = segments
    }

    /// Microseconds at a sample position, rounded to nearest: EXTINFs are differences of these, so they add up
    /// to the whole exactly (to the microsecond) instead of piling up rounding.
    func micros(_ sample: Int64) -> Int64 {
        (sample * 1_000_000 + Int64(index.sampleRate) / 2) / Int64(index.sampleRate)
    }

    /// The spec's rule: every EXTINF rounded to the nearest integer is at most the target duration.
    public var targetDuration: Int {
        segments.map { Int((2 * $0.sampleCount + Int64(index.sampleRate)) / (2 * Int64(index.sampleRate))) }.max() ?? Self.seconds
    }

    /// The media playlist. `query` (e.g. `?api_key=…`) goes on every URI it lists; `version` (the file's) on the
    /// segments', so a changed file never meets segments a player cached from the old one; `encrypted` adds
    /// EXT-X-KEY (IV = media sequence number, the default, so it is not written).
    public func playlist(query: String = "", version: String? = nil, encrypted: Bool) -> String {
        let segmentQuery = version.map { "?v=" + $0 + (query.isEmpty ? "" : "&" + query.dropFirst()) } ?? query
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:\(targetDuration)", "#EXT-X-PLAYLIST-TYPE:VOD",
                     "#EXT-X-MEDIA-SEQUENCE:0"]
        if encrypted { lines.append("#EXT-X-KEY:METHOD=AES-128,URI=\"key\(query)\"") }
        for (n, segment) in segments.enumerated() {
            let duration = micros(segment.startSample + segment.sampleCount) - micros(segment.startSample)
            let fraction = String(duration % 1_000_000)
            lines.append("#EXTINF:\(duration / 1_000_000).\(String(repeating: "0", count: 6 - fraction.count))\(fraction),")
            lines.append("segments/\(n).mp3\(segmentQuery)")
        }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The 73-byte ID3v2.4 tag with the PRIV frame `com.apple.streaming.transportStreamTimestamp`: the segment's
    /// start as a 33-bit 90 kHz timestamp, big-endian in 8 bytes.
    public static func timestampTag(startSample: Int64, sampleRate: Int) -> [UInt8] {
        let pts = (startSample * 90_000 / Int64(sampleRate)) & ((1 << 33) - 1)
        let owner = Array("com.apple.streaming.transportStreamTimestamp".utf8) + [0]
        let body = owner + (0..<8).map { UInt8((pts >> (56 - 8 * $0)) & 0xff) }
        let frame = Array("PRIV".utf8) + syncsafe(body.count) + [0, 0] + body
        return Array("ID3".utf8) + [4, 0, 0] + syncsafe(frame.count) + frame
    }

    static func syncsafe(_ n: Int) -> [UInt8] {
        [UInt8((n >> 21) & 0x7f), UInt8((n >> 14) & 0x7f), UInt8((n >> 7) & 0x7f), UInt8(n & 0x7f)]
    }

    /// What segment n is made of: its timestamp tag, then `length` bytes of the file from `offset` (its frames).
    public struct Part: Sendable, Equatable {
        public var tag: [UInt8]
        public var offset: Int64
        public var length: Int
    }

    public func part(_ n: Int) -> Part? {
        guard segments.indices.contains(n) else { return nil }
        let s = segments[n]
        let first = index.offsets[s.firstFrame]
        let last = s.firstFrame + s.frameCount - 1
        return Part(tag: Self.timestampTag(startSample: s.startSample, sampleRate: index.sampleRate), offset: first,
                    length: Int(index.offsets[last] + Int64(index.sizes[last]) - first))
    }

    /// Segment n's bytes: the tag, then its frames read in one go from the file; AES-128-CBC when a key is given.
    public func segment(_ n: Int, from path: String, key: [UInt8]?) throws -> [UInt8]? {
        guard let part = part(n) else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw MusicError.unreadable(path) }
        defer { close(fd) }
        let tagLength = part.tag.count
        var read = -1
        let out = [UInt8](unsafeUninitializedCapacity: tagLength + part.length) { buffer, count in
            _ = buffer.initialize(from: part.tag)
            read = pread(fd, buffer.baseAddress! + tagLength, part.length, off_t(part.offset))
            count = tagLength + max(0, read)
        }
        guard read == part.length else { throw MusicError.changed(path) }
        guard let key else { return out }
        return try Self.encrypt(out, key: key, sequence: n)
    }

    /// AES-128-CBC, PKCS#7, IV = the media sequence number as a 128-bit big-endian integer.
    public static func encrypt(_ data: [UInt8], key: [UInt8], sequence: Int) throws -> [UInt8] {
        var iv = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 { iv[15 - i] = UInt8((UInt64(sequence) >> (8 * UInt64(i))) & 0xff) }
        var out = [UInt8](repeating: 0, count: data.count + 16)
        var length = 0
        let sealed = out.withUnsafeMutableBufferPointer { o in
            qbt_aes128_cbc_encrypt(key, iv, data, data.count, o.baseAddress, &length)
        }
        guard sealed else { throw MusicError.unreadable("the segment could not be encrypted") }
        return Array(out.prefix(length))
    }
}

public enum MusicError: Error, CustomStringConvertible, Equatable {
    case unreadable(String)
    case changed(String)
    case notMP3(String)

    public var description: String {
        switch self {
        case .unreadable(let path): "cannot read \(path)"
        case .changed(let path): "\(path) changed since it was indexed: it is indexed again on the next scan"
        case .notMP3(let why): why
        }
    }
}
