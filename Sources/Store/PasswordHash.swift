import CCrypto
import Foundation

/// qBittorrent's credential format: PBKDF2-HMAC-SHA512, 100,000 rounds, 16-byte salt, 64-byte key,
/// written as `@ByteArray(<base64 salt>:<base64 key>)` (its `WebUI\Password_PBKDF2`).
public struct PasswordHash: Sendable, Equatable {
    public static let iterations: Int32 = 100_000
    public let salt: [UInt8]
    public let key: [UInt8]

    public init(hashing password: String) {
        var salt = [UInt8](repeating: 0, count: 16)
        precondition(qbt_random_bytes(&salt, salt.count), "OpenSSL has no randomness")
        self.salt = salt
        self.key = Self.derive(password, salt: salt)
    }

    /// Parses the stored form; nil if it is not one.
    public init?(encoded: String) {
        guard encoded.hasPrefix("@ByteArray("), encoded.hasSuffix(")") else { return nil }
        let body = encoded.dropFirst("@ByteArray(".count).dropLast()
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let salt = Data(base64Encoded: String(parts[0])),
              let key = Data(base64Encoded: String(parts[1])), !salt.isEmpty, key.count == 64 else { return nil }
        self.salt = Array(salt)
        self.key = Array(key)
    }

    public var encoded: String { "@ByteArray(\(Data(salt).base64EncodedString()):\(Data(key).base64EncodedString()))" }

    /// Constant-time comparison of the derived key.
    public func matches(_ password: String) -> Bool {
        let candidate = Self.derive(password, salt: salt)
        guard candidate.count == key.count else { return false }
        return zip(candidate, key).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    static func derive(_ password: String, salt: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 64)
        let utf8 = Array(password.utf8)
        let ok = utf8.withUnsafeBufferPointer { pw in
            pw.withMemoryRebound(to: CChar.self) { p in
                qbt_pbkdf2_sha512(p.baseAddress, p.count, salt, salt.count, iterations, &out, out.count)
            }
        }
        precondition(ok, "PBKDF2 failed")
        return out
    }

    /// A random password of letters and digits, for a first start with none set.
    public static func generatePassword(length: Int = 12) -> String {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789")
        var bytes = [UInt8](repeating: 0, count: length)
        precondition(qbt_random_bytes(&bytes, bytes.count))
        return String(bytes.map { alphabet[Int($0) % alphabet.count] })
    }
}

/// SHA-256 and randomness from OpenSSL, for API keys: high-entropy secrets need no slow hash.
public enum Digest {
    public static func sha256Hex(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var out = [UInt8](repeating: 0, count: 32)
        precondition(qbt_sha256(bytes, bytes.count, &out), "OpenSSL SHA-256 failed")
        return Hex.encode(out)
    }

    /// `count` random characters from `alphabet`.
    public static func randomString(_ count: Int, alphabet: String = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") -> String {
        let letters = Array(alphabet)
        var bytes = [UInt8](repeating: 0, count: count * 2)
        precondition(qbt_random_bytes(&bytes, bytes.count), "OpenSSL has no randomness")
        return String((0..<count).map { i in letters[Int(UInt16(bytes[2 * i]) << 8 | UInt16(bytes[2 * i + 1])) % letters.count] })
    }
}
