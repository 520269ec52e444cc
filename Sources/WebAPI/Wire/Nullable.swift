/// A value that qBittorrent sends as JSON `null` when unknown (Swift's synthesized coding would omit the key).
public struct Nullable<Wrapped: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    public var value: Wrapped?
    public init(_ value: Wrapped?) { self.value = value }

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        value = c.decodeNil() ? nil : try c.decode(Wrapped.self)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        if let value { try c.encode(value) } else { try c.encodeNil() }
    }
}
