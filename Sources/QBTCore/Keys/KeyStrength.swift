/// Whether a key a user chose is strong enough to stand for a password nobody types: at least 128 bits, counted as
/// its length times the bits of the smallest usual alphabet its characters fit in (digits, hex, letters and digits,
/// base64, printable ASCII), and at least 8 distinct characters. So 32 hex digits, 22 base64 characters or
/// qBittorrent's own `qbt_` keys pass; `aaaa…` and short words do not.
public enum KeyStrength {
    public static let minimumBits = 128.0
    public static let maximumLength = 256

    public static func bits(_ key: String) -> Double {
        let scalars = Array(key.unicodeScalars)
        guard !scalars.isEmpty, scalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else { return 0 }
        // Base64's padding carries nothing.
        let body = scalars.reversed().drop { $0 == "=" }.count
        func all(_ test: (Unicode.Scalar) -> Bool) -> Bool { scalars.allSatisfy(test) }
        let digit: (Unicode.Scalar) -> Bool = { $0 >= "0" && $0 <= "9" }
        let hex: (Unicode.Scalar) -> Bool = { digit($0) || ($0 >= "a" && $0 <= "f") || ($0 >= "A" && $0 <= "F") }
        let alnum: (Unicode.Scalar) -> Bool = { digit($0) || ($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") }
        let base64: (Unicode.Scalar) -> Bool = { alnum($0) || "+/-_=".unicodeScalars.contains($0) }
        let perCharacter = all(digit) ? 3.32 : all(hex) ? 4 : all(alnum) ? 5.95 : all(base64) ? 6 : 6.55
        return Double(body) * perCharacter
    }

    /// Nil when `key` will do; otherwise what is wrong with it, said so a user can fix it.
    public static func problem(_ key: String) -> String? {
        if key.isEmpty { return "the key is empty" }
        if key.count > maximumLength { return "the key is longer than \(maximumLength) characters" }
        if !key.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) {
            return "the key may hold only printable ASCII characters, no spaces"
        }
        if Set(key).count < 8 || bits(key) < minimumBits {
            return "the key is too easy to guess: use at least 128 random bits, e.g. 32 hex digits (openssl rand -hex 16) or 22 base64 characters"
        }
        return nil
    }
}
