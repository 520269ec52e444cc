import CCrypto
import Store

/// An incremental SHA-1, SHA-256 or MD5 (OpenSSL, through the shim): uploads hash while they write.
public final class RunningDigest: @unchecked Sendable {
    private let handle: OpaquePointer
    public let algorithm: String

    /// nil for an algorithm qbtd does not offer.
    public init?(_ algorithm: String) {
        guard let handle = qbt_digest_new(algorithm) else { return nil }
        self.handle = handle
        self.algorithm = algorithm
    }

    deinit { qbt_digest_free(handle) }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        qbt_digest_update(handle, base.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    public func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    /// The digest of what was fed so far; feeding may go on.
    public var value: [UInt8] {
        var out = [UInt8](repeating: 0, count: 64)
        let size = out.withUnsafeMutableBufferPointer { qbt_digest_peek(handle, $0.baseAddress) }
        return Array(out.prefix(size))
    }

    public var hex: String { Hex.encode(value) }

    public static let algorithms = ["sha1", "sha256", "md5"]
}
