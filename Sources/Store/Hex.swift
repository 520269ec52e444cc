/// Lower-case hexadecimal for digests and tokens, from a table: `String(format: "%02x")` goes through Foundation's
/// formatter once per byte, which showed as a tenth of a keyed request's CPU (the key's SHA-256 is hexed each time).
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
