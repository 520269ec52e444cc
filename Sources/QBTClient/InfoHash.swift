import Foundation

/// The id a server will list a torrent under, known before adding it (for `qbt add --wait`).
public enum InfoHash {
    /// The id a server lists a magnet's torrent under, as libtorrent's `get_best()`: a v2 hash (`urn:btmh:1220…`)
    /// cut to 20 bytes when there is one, else the v1 hash (`urn:btih:`, hex or base32); nil when it names none.
    public static func ofMagnet(_ uri: String) -> String? {
        guard let components = URLComponents(string: uri), components.scheme?.lowercased() == "magnet" else { return nil }
        var v1: String?
        for item in components.queryItems ?? [] where item.name.lowercased().hasPrefix("xt") {
            guard let value = item.value?.lowercased() else { continue }
            if value.hasPrefix("urn:btmh:1220") {
                let hash = value.dropFirst("urn:btmh:1220".count)
                if hash.count == 64, hash.allSatisfy(\.isHexDigit) { return String(hash.prefix(40)) }
            } else if value.hasPrefix("urn:btih:"), v1 == nil {
                let hash = String(value.dropFirst("urn:btih:".count))
                if hash.count == 40, hash.allSatisfy(\.isHexDigit) { v1 = hash }
                else if hash.count == 32, let bytes = base32(hash.uppercased()) { v1 = hex(bytes) }
            }
        }
        return v1
    }

    /// Whether a magnet names a torrent at all (a v1 or v2 hash), so a typo is caught before the server sees it.
    public static func isValidMagnet(_ uri: String) -> Bool { ofMagnet(uri) != nil }

    /// The id qBittorrent lists a .torrent file under: SHA-1 of the bencoded `info` dictionary, or for a v2 or
    /// hybrid torrent (`meta version` 2) its SHA-256 cut to 20 bytes, as libtorrent's `get_best()`; nil for non-torrents.
    public static func ofMetainfo(_ data: Data) -> String? {
        let bytes = [UInt8](data)
        var scanner = Bencode(bytes: bytes)
        guard let span = scanner.span(forKey: "info") else { return nil }
        let info = bytes[span]
        if isVersion2(Array(info)) { return hex(Array(SHA256.digest(info).prefix(20))) }
        return hex(SHA1.digest(info))
    }

    /// Whether the info dictionary has `meta version` 2 among its top-level keys.
    static func isVersion2(_ info: [UInt8]) -> Bool {
        var scanner = Bencode(bytes: info)
        return scanner.span(forKey: "meta version").map { Array(info[$0]) } == Array("i2e".utf8)
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    static func base32(_ text: String) -> [UInt8]? {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var bits = 0, value = 0
        var out: [UInt8] = []
        for ch in text {
            guard let i = alphabet.firstIndex(of: ch) else { return nil }
            value = (value << 5) | i
            bits += 5
            if bits >= 8 { bits -= 8; out.append(UInt8((value >> bits) & 0xff)) }
        }
        return out.count == 20 ? out : nil
    }
}

/// Just enough bencode to find where a top-level value (`info`) starts and ends.
struct Bencode {
    let bytes: [UInt8]
    var i = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// Where the value of a key of the dictionary at the start lies.
    mutating func span(forKey wanted: String) -> Range<Int>? {
        guard i < bytes.count, bytes[i] == UInt8(ascii: "d") else { return nil }
        i += 1
        while i < bytes.count, bytes[i] != UInt8(ascii: "e") {
            guard let key = string() else { return nil }
            let start = i
            guard skip() else { return nil }
            if key == Array(wanted.utf8) { return start..<i }
        }
        return nil
    }

    mutating func string() -> [UInt8]? {
        var length = 0
        while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 {
            length = length * 10 + Int(bytes[i] - 48)
            guard length < 1 << 28 else { return nil }
            i += 1
        }
        guard i < bytes.count, bytes[i] == UInt8(ascii: ":"), i + 1 + length <= bytes.count else { return nil }
        defer { i += 1 + length }
        return Array(bytes[(i + 1)..<(i + 1 + length)])
    }

    /// Skips one value; depth-limited so a hostile file cannot exhaust the stack.
    mutating func skip(depth: Int = 0) -> Bool {
        guard depth < 64, i < bytes.count else { return false }
        switch bytes[i] {
        case UInt8(ascii: "i"):
            guard let end = bytes[i...].firstIndex(of: UInt8(ascii: "e")) else { return false }
            i = end + 1
            return true
        case UInt8(ascii: "l"), UInt8(ascii: "d"):
            i += 1
            while i < bytes.count, bytes[i] != UInt8(ascii: "e") { guard skip(depth: depth + 1) else { return false } }
            guard i < bytes.count else { return false }
            i += 1
            return true
        default:
            return string() != nil
        }
    }
}

/// SHA-1 (FIPS 180-4), only for info hashes: qbt links no crypto library.
enum SHA1 {
    static func digest<C: Collection>(_ message: C) -> [UInt8] where C.Element == UInt8 {
        var h: [UInt32] = [0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0]
        var w = [UInt32](repeating: 0, count: 80)
        for block in blocks(message) {
            w.replaceSubrange(0..<16, with: block)
            for t in 16..<80 {
                let x = w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16]
                w[t] = (x << 1) | (x >> 31)
            }
            var (a, b, c, d, e) = (h[0], h[1], h[2], h[3], h[4])
            for t in 0..<80 {
                let (f, k): (UInt32, UInt32) = switch t {
                case 0..<20: ((b & c) | (~b & d), 0x5A827999)
                case 20..<40: (b ^ c ^ d, 0x6ED9EBA1)
                case 40..<60: ((b & c) | (b & d) | (c & d), 0x8F1BBCDC)
                default: (b ^ c ^ d, 0xCA62C1D6)
                }
                let temp = ((a << 5) | (a >> 27)) &+ f &+ e &+ k &+ w[t]
                (e, d, c, b, a) = (d, c, (b << 30) | (b >> 2), a, temp)
            }
            h[0] = h[0] &+ a; h[1] = h[1] &+ b; h[2] = h[2] &+ c; h[3] = h[3] &+ d; h[4] = h[4] &+ e
        }
        return bigEndian(h)
    }
}

/// SHA-256 (FIPS 180-4), for the ids of v2 and hybrid torrents.
enum SHA256 {
    static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    static func digest<C: Collection>(_ message: C) -> [UInt8] where C.Element == UInt8 {
        var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
        func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
        var w = [UInt32](repeating: 0, count: 64)
        for block in blocks(message) {
            w.replaceSubrange(0..<16, with: block)
            for t in 16..<64 {
                let s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
                let s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
            for t in 0..<64 {
                let t1 = hh &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ ((e & f) ^ (~e & g)) &+ k[t] &+ w[t]
                let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
                (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
            }
            for (i, v) in [a, b, c, d, e, f, g, hh].enumerated() { h[i] = h[i] &+ v }
        }
        return bigEndian(h)
    }
}

/// The message padded as SHA-1 and SHA-256 pad it (0x80, zeros to 56 mod 64, the bit length), as 64-byte blocks
/// of 16 big-endian words.
func blocks<C: Collection>(_ message: C) -> [[UInt32]] where C.Element == UInt8 {
    var data = Array(message)
    let bitLength = UInt64(data.count) * 8
    data.append(0x80)
    while data.count % 64 != 56 { data.append(0) }
    for shift in stride(from: 56, through: 0, by: -8) { data.append(UInt8((bitLength >> UInt64(shift)) & 0xff)) }
    return stride(from: 0, to: data.count, by: 64).map { chunk in
        (0..<16).map { t in
            let b = chunk + t * 4
            return UInt32(data[b]) << 24 | UInt32(data[b + 1]) << 16 | UInt32(data[b + 2]) << 8 | UInt32(data[b + 3])
        }
    }
}

/// The digest words as bytes, big-endian.
func bigEndian(_ words: [UInt32]) -> [UInt8] {
    words.flatMap { v in [24, 16, 8, 0].map { UInt8((v >> UInt32($0)) & 0xff) } }
}
