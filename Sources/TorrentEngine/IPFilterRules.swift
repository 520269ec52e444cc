import Foundation

/// The address ranges the session refuses peers from (and trackers, with `apply_ip_filter_to_trackers`): the user's
/// IP filter file and the banned addresses together, handed to libtorrent in one piece.
public struct IPFilterRules: Sendable, Equatable {
    /// IPv4 ranges, host byte order, first ≤ last.
    public var v4: [ClosedRange<UInt32>] = []
    /// IPv6 ranges, first ≤ last.
    public var v6: [ClosedRange<IPv6>] = []

    public init(v4: [ClosedRange<UInt32>] = [], v6: [ClosedRange<IPv6>] = []) {
        self.v4 = v4
        self.v6 = v6
    }

    public var count: Int { v4.count + v6.count }
    public var isEmpty: Bool { v4.isEmpty && v6.isEmpty }

    /// Adds one address (IPv4 or IPv6 text); false when it is not one.
    @discardableResult
    public mutating func block(_ address: String) -> Bool {
        if let a = IPv6.v4(address) { v4.append(a...a); return true }
        if let a = IPv6(address) { v6.append(a...a); return true }
        return false
    }

    public static func + (lhs: IPFilterRules, rhs: IPFilterRules) -> IPFilterRules {
        IPFilterRules(v4: lhs.v4 + rhs.v4, v6: lhs.v6 + rhs.v6)
    }
}

/// A 128-bit IPv6 address, ordered as libtorrent orders them; also the parser of address text for both families.
public struct IPv6: Sendable, Hashable, Comparable {
    public var bytes: (UInt64, UInt64)

    public init(high: UInt64, low: UInt64) { bytes = (high, low) }

    /// Parses IPv6 text (`::1`, `fe80::1`; a zone id is refused).
    public init?(_ text: String) {
        var raw = in6_addr()
        guard text.contains(":"), inet_pton(AF_INET6, text, &raw) == 1 else { return nil }
        let b = withUnsafeBytes(of: raw) { Array($0) }
        self.init(high: b[0..<8].reduce(0) { $0 << 8 | UInt64($1) }, low: b[8..<16].reduce(0) { $0 << 8 | UInt64($1) })
    }

    /// Parses IPv4 text; leading zeros in a part are decimal (`001.009.096.105`, as eMule writes them).
    public static func v4(_ text: String) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy({ $0.isASCII && $0.isNumber }), let n = UInt32(part), n <= 255
            else { return nil }
            value = value << 8 | n
        }
        return value
    }

    /// The 16 bytes, network order.
    public var networkBytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: bytes.0 >> (56 - 8 * $0)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: bytes.1 >> (56 - 8 * $0)) }
    }

    public static func == (a: IPv6, b: IPv6) -> Bool { a.bytes == b.bytes }
    public static func < (a: IPv6, b: IPv6) -> Bool { a.bytes < b.bytes }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(bytes.0)
        hasher.combine(bytes.1)
    }
}
