/// A preference named by its key and read as its Swift type: `settings[\.preallocateAll]` is a `Bool`. Every typed
/// key is a property of `PreferenceKeys`, and PreferenceKeysTests checks each against `PreferenceCatalogue.entries`
/// (the key exists, its type is the entry's), so a misspelt key or a wrong type fails a test instead of reading
/// false, 0 or "".
public struct Preference<Value: PreferenceValue>: Sendable, Hashable {
    public let key: String
    init(_ key: String) { self.key = key }
}

/// A Swift type a preference can be read as, and the catalogue type it stands for.
public protocol PreferenceValue: Sendable {
    static var valueType: PreferenceEntry.ValueType { get }
    /// The value, when `json` has this type (numbers convert as `JSONValue`'s accessors convert them).
    init?(preference json: JSONValue)
    var json: JSONValue { get }
    /// What a key without a value reads as (none in the catalogue: every read key has a default).
    static var zero: Self { get }
}

extension Bool: PreferenceValue {
    public static var valueType: PreferenceEntry.ValueType { .bool }
    public init?(preference json: JSONValue) { guard let b = json.boolValue else { return nil }; self = b }
    public var json: JSONValue { .bool(self) }
    public static var zero: Bool { false }
}

extension Int: PreferenceValue {
    public static var valueType: PreferenceEntry.ValueType { .int }
    public init?(preference json: JSONValue) { guard let i = json.intValue else { return nil }; self = Int(i) }
    public var json: JSONValue { .int(Int64(self)) }
    public static var zero: Int { 0 }
}

extension Double: PreferenceValue {
    public static var valueType: PreferenceEntry.ValueType { .double }
    public init?(preference json: JSONValue) { guard let d = json.doubleValue else { return nil }; self = d }
    public var json: JSONValue { .double(self) }
    public static var zero: Double { 0 }
}

extension String: PreferenceValue {
    public static var valueType: PreferenceEntry.ValueType { .string }
    public init?(preference json: JSONValue) { guard let s = json.stringValue else { return nil }; self = s }
    public var json: JSONValue { .string(self) }
    public static var zero: String { "" }
}

extension Dictionary: PreferenceValue where Key == String, Value == JSONValue {
    public static var valueType: PreferenceEntry.ValueType { .object }
    public init?(preference json: JSONValue) { guard case .object(let o) = json else { return nil }; self = o }
    public var json: JSONValue { .object(self) }
    public static var zero: [String: JSONValue] { [:] }
}

extension Array: PreferenceValue where Element == JSONValue {
    public static var valueType: PreferenceEntry.ValueType { .array }
    public init?(preference json: JSONValue) { guard case .array(let a) = json else { return nil }; self = a }
    public var json: JSONValue { .array(self) }
    public static var zero: [JSONValue] { [] }
}

/// A typed key with its type forgotten: what the catalogue test and key sets see.
public protocol AnyPreference: Sendable {
    var key: String { get }
    var valueType: PreferenceEntry.ValueType { get }
}

extension Preference: AnyPreference {
    public var valueType: PreferenceEntry.ValueType { Value.valueType }
}
