/// A compact encoding of `Codable` values for what the nodes of a cluster publish to each other
/// (`TorrentViewsSync`): the fields in their declaration order without their names, integers as (zigzag) varints,
/// floating point as its bits, a string as its length and UTF-8, an array as its count and elements, an optional field
/// as a presence byte and its value. Foundation's JSON spent three quarters of a restarting node's CPU decoding the
/// others' torrents; this reads them about ten times faster.
///
/// Both ends must have the same types: `layout(of:)` fingerprints a value's field names, and a reader of another
/// layout (a node of another qbtd version) is told so instead of misreading it. Keyed enums with associated values
/// and optionals outside a struct's fields are not supported (`PackedError.unsupported`).
public struct PackedEncoder {
    public init() {}

    /// The largest number written, either way (what JSON carries exactly, far past any size, rate or time a torrent
    /// has): a larger one (a limit a client set to 2^60) is written as this, and a reader refuses anything beyond it,
    /// so sums and differences of a few read numbers cannot overflow where the listings add them up.
    public static let largest: Int64 = 1 << 53

    /// The value's bytes, appended to `bytes`.
    public func encode<T: Encodable>(_ value: T, into bytes: inout [UInt8]) throws {
        let sink = PackedSink(bytes: bytes)
        bytes = []
        defer { bytes = sink.bytes }
        try value.encode(to: PackedEncoding(sink))
        if let unsupported = sink.unsupported { throw PackedError.unsupported(unsupported) }
    }

    /// A fingerprint of the names of the fields `value` encodes, in their order (FNV-1a): give it a value whose
    /// optional fields and arrays of structures are filled, so their fields are counted too.
    public static func layout<T: Encodable>(of value: T) -> UInt64 {
        let sink = PackedSink(bytes: [])
        sink.keys = []
        try? value.encode(to: PackedEncoding(sink))
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for key in sink.keys ?? [] {
            for byte in key.utf8 + [0] { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        }
        return hash
    }
}

/// What packing or unpacking can end in.
public enum PackedError: Error, Equatable {
    /// The value uses what the encoding leaves out (`what` says which).
    case unsupported(String)
    /// The bytes end early or hold what no encoder wrote.
    case corrupt(String)
}

/// The bytes being written, shared by every container of one encoding.
final class PackedSink {
    var bytes: [UInt8]
    /// The field names met, when fingerprinting.
    var keys: [String]?
    var unsupported: String?

    init(bytes: [UInt8]) { self.bytes = bytes }

    func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    func signed(_ value: Int64) { varint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

    /// A number, saturated at ±`PackedEncoder.largest`.
    func number(_ value: Int64) { signed(min(max(value, -PackedEncoder.largest), PackedEncoder.largest)) }

    /// A count, saturated at `PackedEncoder.largest`.
    func count(_ value: UInt64) { varint(min(value, UInt64(PackedEncoder.largest))) }

    func string(_ value: String) {
        var s = value
        s.withUTF8 { utf8 in
            varint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    func fixed64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }

    func fixed32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
}

struct PackedEncoding: Encoder {
    let sink: PackedSink
    init(_ sink: PackedSink) { self.sink = sink }

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(PackedKeyedEncoder<Key>(sink: sink))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer { PackedUnkeyedEncoder(sink) }

    func singleValueContainer() -> any SingleValueEncodingContainer { PackedValueEncoder(sink: sink) }
}

/// One value: what the keyed and unkeyed containers write for each of their entries.
struct PackedValueEncoder: SingleValueEncodingContainer {
    let sink: PackedSink
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws { sink.unsupported = "an optional outside a structure's fields" }
    mutating func encode(_ value: Bool) throws { sink.bytes.append(value ? 1 : 0) }
    mutating func encode(_ value: String) throws { sink.string(value) }
    mutating func encode(_ value: Double) throws { sink.fixed64(value.bitPattern) }
    mutating func encode(_ value: Float) throws { sink.fixed32(value.bitPattern) }
    mutating func encode(_ value: Int) throws { sink.number(Int64(value)) }
    mutating func encode(_ value: Int8) throws { sink.number(Int64(value)) }
    mutating func encode(_ value: Int16) throws { sink.number(Int64(value)) }
    mutating func encode(_ value: Int32) throws { sink.number(Int64(value)) }
    mutating func encode(_ value: Int64) throws { sink.number(value) }
    mutating func encode(_ value: UInt) throws { sink.count(UInt64(value)) }
    mutating func encode(_ value: UInt8) throws { sink.count(UInt64(value)) }
    mutating func encode(_ value: UInt16) throws { sink.count(UInt64(value)) }
    mutating func encode(_ value: UInt32) throws { sink.count(UInt64(value)) }
    mutating func encode(_ value: UInt64) throws { sink.count(value) }
    mutating func encode<T: Encodable>(_ value: T) throws { try value.encode(to: PackedEncoding(sink)) }
}

/// A structure's fields, in the order its `encode(to:)` writes them; an optional one as 0 (nil) or 1 and its value.
struct PackedKeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let sink: PackedSink
    var codingPath: [any CodingKey] { [] }

    private var value: PackedValueEncoder { PackedValueEncoder(sink: sink) }

    private func field(_ key: Key) { sink.keys?.append(key.stringValue) }

    private mutating func optional<V>(_ value: V?, _ key: Key, _ write: (inout PackedValueEncoder, V) throws -> Void) throws {
        field(key)
        guard let value else { return sink.bytes.append(0) }
        sink.bytes.append(1)
        var encoder = self.value
        try write(&encoder, value)
    }

    mutating func encodeNil(forKey key: Key) throws { field(key); sink.bytes.append(0) }
    mutating func encode(_ v: Bool, forKey key: Key) throws { field(key); var e = value; try e.encode(v) }
    mutating func encode(_ v: String, forKey key: Key) throws { field(key); var e = value; try e.encode(v) }
    mutating func encode(_ v: Double, forKey key: Key) throws { field(key); var e = value; try e.encode(v) }
    mutating func encode(_ v: Float, forKey key: Key) throws { field(key); var e = value; try e.encode(v) }
    mutating func encode(_ v: Int, forKey key: Key) throws { field(key); var e = value; try e.encode(v) }
    mutating func encode(_ v: Int8, forKey key: Key) throws { field(key); var e = value; try e.encode(v) }
    mutating func encode(_ v: Int16, forKey key: Key) throws { field(key); var e = value; try e.encode(v) }
    mutating func encode(_ v: Int32, forKey key: Key) throws { field(key); var e = value; try e.encode(v) }
    mutating func encode(_ v: Int64, forKey key: Key) throws { field(key); var e = value; try e.encode(v) }
    mutating func encode(_ v: UInt, forKey key: Key) throws { field(key); var e = value; try e.encode(v) }
    mutating func encode(_ v: UInt8, forKey key: Key) throws { field(key); var e = value; try e.encode(v) }
    mutating func encode(_ v: UInt16, forKey key: Key) throws { field(key); var e = value; try e.encode(v) }
    mutating func encode(_ v: UInt32, forKey key: Key) throws { field(key); var e = value; try e.encode(v) }
    mutating func encode(_ v: UInt64, forKey key: Key) throws { field(key); var e = value; try e.encode(v) }
    mutating func encode<T: Encodable>(_ v: T, forKey key: Key) throws { field(key); var e = value; try e.encode(v) }

    mutating func encodeIfPresent(_ v: Bool?, forKey key: Key) throws { try optional(v, key) { try $0.encode($1) } }
    mutating func encodeIfPresent(_ v: String?, forKey key: Key) throws { try optional(v, key) { try $0.encode($1) } }
    mutating func encodeIfPresent(_ v: Double?, forKey key: Key) throws { try optional(v, key) { try $0.encode($1) } }
    mutating func encodeIfPresent(_ v: Float?, forKey key: Key) throws { try optional(v, key) { try $0.encode($1) } }
    mutating func encodeIfPresent(_ v: Int?, forKey key: Key) throws { try optional(v, key) { try $0.encode($1) } }
    mutating func encodeIfPresent(_ v: Int8?, forKey key: Key) throws { try optional(v, key) { try $0.encode($1) } }
    mutating func encodeIfPresent(_ v: Int16?, forKey key: Key) throws { try optional(v, key) { try $0.encode($1) } }
    mutating func encodeIfPresent(_ v: Int32?, forKey key: Key) throws { try optional(v, key) { try $0.encode($1) } }
    mutating func encodeIfPresent(_ v: Int64?, forKey key: Key) throws { try optional(v, key) { try $0.encode($1) } }
    mutating func encodeIfPresent(_ v: UInt?, forKey key: Key) throws { try optional(v, key) { try $0.encode($1) } }
    mutating func encodeIfPresent(_ v: UInt8?, forKey key: Key) throws { try optional(v, key) { try $0.encode($1) } }
    mutating func encodeIfPresent(_ v: UInt16?, forKey key: Key) throws { try optional(v, key) { try $0.encode($1) } }
    mutating func encodeIfPresent(_ v: UInt32?, forKey key: Key) throws { try optional(v, key) { try $0.encode($1) } }
    mutating func encodeIfPresent(_ v: UInt64?, forKey key: Key) throws { try optional(v, key) { try $0.encode($1) } }
    mutating func encodeIfPresent<T: Encodable>(_ v: T?, forKey key: Key) throws { try optional(v, key) { try $0.encode($1) } }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                        forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        sink.unsupported = "a nested container (an enum with associated values?) at \(key.stringValue)"
        return KeyedEncodingContainer(PackedKeyedEncoder<NestedKey>(sink: sink))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        field(key)
        return PackedUnkeyedEncoder(sink)
    }

    mutating func superEncoder() -> any Encoder { PackedEncoding(sink) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { field(key); return PackedEncoding(sink) }
}

/// An array: its count (four bytes, written as elements come, since `Array.encode(to:)` does not say it first),
/// then its elements.
final class PackedUnkeyedEncoder: UnkeyedEncodingContainer {
    let sink: PackedSink
    private let slot: Int
    private(set) var count = 0
    var codingPath: [any CodingKey] { [] }

    init(_ sink: PackedSink) {
        self.sink = sink
        slot = sink.bytes.count
        sink.fixed32(0)
    }

    private func counted() {
        count += 1
        withUnsafeBytes(of: UInt32(count).littleEndian) { raw in
            for (i, byte) in raw.enumerated() { sink.bytes[slot + i] = byte }
        }
    }

    private var value: PackedValueEncoder { PackedValueEncoder(sink: sink) }

    func encodeNil() throws { sink.unsupported = "an optional in an array" }
    func encode(_ v: Bool) throws { counted(); var e = value; try e.encode(v) }
    func encode(_ v: String) throws { counted(); var e = value; try e.encode(v) }
    func encode(_ v: Double) throws { counted(); var e = value; try e.encode(v) }
    func encode(_ v: Float) throws { counted(); var e = value; try e.encode(v) }
    func encode(_ v: Int) throws { counted(); var e = value; try e.encode(v) }
    func encode(_ v: Int8) throws { counted(); var e = value; try e.encode(v) }
    func encode(_ v: Int16) throws { counted(); var e = value; try e.encode(v) }
    func encode(_ v: Int32) throws { counted(); var e = value; try e.encode(v) }
    func encode(_ v: Int64) throws { counted(); var e = value; try e.encode(v) }
    func encode(_ v: UInt) throws { counted(); var e = value; try e.encode(v) }
    func encode(_ v: UInt8) throws { counted(); var e = value; try e.encode(v) }
    func encode(_ v: UInt16) throws { counted(); var e = value; try e.encode(v) }
    func encode(_ v: UInt32) throws { counted(); var e = value; try e.encode(v) }
    func encode(_ v: UInt64) throws { counted(); var e = value; try e.encode(v) }
    func encode<T: Encodable>(_ v: T) throws { counted(); var e = value; try e.encode(v) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        counted()
        return KeyedEncodingContainer(PackedKeyedEncoder<NestedKey>(sink: sink))
    }

    func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        counted()
        return PackedUnkeyedEncoder(sink)
    }

    func superEncoder() -> any Encoder { counted(); return PackedEncoding(sink) }
}
