/// Reads what `PackedEncoder` wrote, into the same types. The bytes come from another machine: every read is
/// checked, and bytes that end early or hold what no encoder wrote are `PackedError.corrupt`, never a trap.
public struct PackedDecoder {
    public init() {}

    /// The value at the start of `bytes[from...]`, and where it ended.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8], at start: Int = 0) throws -> (T, end: Int) {
        guard start >= 0, start <= bytes.count else { throw PackedError.corrupt("a start at \(start) outside \(bytes.count) bytes") }
        let source = PackedSource(bytes, at: start)
        let value = try T(from: PackedDecoding(source))
        return (value, source.at)
    }
}

/// The bytes being read and the place reached, shared by every container of one decoding.
final class PackedSource {
    let bytes: [UInt8]
    var at: Int

    init(_ bytes: [UInt8], at: Int) {
        self.bytes = bytes
        self.at = at
    }

    func byte() throws -> UInt8 {
        guard at < bytes.count else { throw PackedError.corrupt("the bytes end early") }
        defer { at += 1 }
        return bytes[at]
    }

    func varint() throws -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 70, by: 7) {
            let b = try byte()
            value |= UInt64(b & 0x7f) << UInt64(shift)
            if b < 0x80 { return value }
        }
        throw PackedError.corrupt("a number longer than ten bytes")
    }

    func signed() throws -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    func length() throws -> Int {
        let n = try varint()
        guard n <= UInt64(bytes.count - at) else { throw PackedError.corrupt("a length of \(n) past the end") }
        return Int(n)
    }

    func string() throws -> String {
        let n = try length()
        defer { at += n }
        return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[at..<at + n]), as: UTF8.self) }
    }

    func fixed(_ size: Int) throws -> UInt64 {
        guard bytes.count - at >= size else { throw PackedError.corrupt("the bytes end early") }
        var value: UInt64 = 0
        for i in 0..<size { value |= UInt64(bytes[at + i]) << UInt64(8 * i) }
        at += size
        return value
    }

    /// A number another node sent, never beyond ±2^53 (`PackedEncoder.largest`: no encoder writes more).
    static let largest = UInt64(PackedEncoder.largest)

    func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        if I.isSigned {
            let v = try signed()
            guard v.magnitude <= Self.largest, let i = I(exactly: v) else { throw PackedError.corrupt("\(v) does not fit \(I.self)") }
            return i
        }
        let v = try varint()
        guard v <= Self.largest, let i = I(exactly: v) else { throw PackedError.corrupt("\(v) does not fit \(I.self)") }
        return i
    }
}

struct PackedDecoding: Decoder {
    let source: PackedSource
    init(_ source: PackedSource) { self.source = source }

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(PackedKeyedDecoder<Key>(source: source))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { try PackedUnkeyedDecoder(source) }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { PackedValueDecoder(source: source) }
}

struct PackedValueDecoder: SingleValueDecodingContainer {
    let source: PackedSource
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { false }  // optionals are read by their structure's container
    func decode(_ type: Bool.Type) throws -> Bool {
        switch try source.byte() {
        case 0: false
        case 1: true
        case let b: throw PackedError.corrupt("\(b) for a Bool")
        }
    }
    func decode(_ type: String.Type) throws -> String { try source.string() }
    func decode(_ type: Double.Type) throws -> Double { Double(bitPattern: try source.fixed(8)) }
    func decode(_ type: Float.Type) throws -> Float { Float(bitPattern: UInt32(try source.fixed(4))) }
    func decode(_ type: Int.Type) throws -> Int { try source.integer(Int.self) }
    func decode(_ type: Int8.Type) throws -> Int8 { try source.integer(Int8.self) }
    func decode(_ type: Int16.Type) throws -> Int16 { try source.integer(Int16.self) }
    func decode(_ type: Int32.Type) throws -> Int32 { try source.integer(Int32.self) }
    func decode(_ type: Int64.Type) throws -> Int64 { try source.integer(Int64.self) }
    func decode(_ type: UInt.Type) throws -> UInt { try source.integer(UInt.self) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try source.integer(UInt8.self) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try source.integer(UInt16.self) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try source.integer(UInt32.self) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try source.integer(UInt64.self) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: PackedDecoding(source)) }
}

/// A structure's fields in the order they were written: the keys are not in the bytes, so `contains` is always
/// true and an optional's presence byte is read by `decodeNil(forKey:)` (the default `decodeIfPresent` asks it
/// first).
struct PackedKeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let source: PackedSource
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }  // keyed enums are not supported: their synthesized decoding then throws

    private var value: PackedValueDecoder { PackedValueDecoder(source: source) }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool {
        switch try source.byte() {
        case 0: true
        case 1: false
        case let b: throw PackedError.corrupt("\(b) for an optional \(key.stringValue)")
        }
    }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try value.decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try value.decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try value.decode(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try value.decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try value.decode(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try value.decode(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try value.decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try value.decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try value.decode(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try value.decode(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try value.decode(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try value.decode(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try value.decode(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try value.decode(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try value.decode(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type,
                                               forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw PackedError.unsupported("a nested container at \(key.stringValue)")
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try PackedUnkeyedDecoder(source) }
    func superDecoder() throws -> any Decoder { PackedDecoding(source) }
    func superDecoder(forKey key: Key) throws -> any Decoder { PackedDecoding(source) }
}

/// An array: its count, then its elements.
struct PackedUnkeyedDecoder: UnkeyedDecodingContainer {
    let source: PackedSource
    let count: Int?
    private(set) var currentIndex = 0
    var codingPath: [any CodingKey] { [] }
    var isAtEnd: Bool { currentIndex >= count! }

    init(_ source: PackedSource) throws {
        self.source = source
        let n = Int(try source.fixed(4))
        // Each element takes a byte at least: a count past the end is corrupt, not a reason to reserve memory.
        guard n <= source.bytes.count - source.at else { throw PackedError.corrupt("\(n) elements past the end") }
        count = n
    }

    private mutating func next() throws -> PackedValueDecoder {
        guard !isAtEnd else { throw PackedError.corrupt("an array read past its \(count!) elements") }
        currentIndex += 1
        return PackedValueDecoder(source: source)
    }

    mutating func decodeNil() throws -> Bool { false }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try next().decode(type) }
    mutating func decode(_ type: String.Type) throws -> String { try next().decode(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try next().decode(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next().decode(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next().decode(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next().decode(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next().decode(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next().decode(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next().decode(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next().decode(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next().decode(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next().decode(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next().decode(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next().decode(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decode(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        _ = try next()
        return KeyedDecodingContainer(PackedKeyedDecoder<NestedKey>(source: source))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        _ = try next()
        return try PackedUnkeyedDecoder(source)
    }

    mutating func superDecoder() throws -> any Decoder {
        _ = try next()
        return PackedDecoding(source)
    }
}
