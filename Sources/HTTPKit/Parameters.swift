import FormData
import Foundation

/// The parameters of one API call: the query for GET/HEAD, the body (urlencoded or multipart) for POST.
/// Readers follow qBittorrent's parsing rules, so clients see the same leniency and the same refusals.
public struct Parameters: Sendable {
    public var fields: [String: String]
    public var files: [UploadedFile]

    public init(fields: [String: String] = [:], files: [UploadedFile] = []) {
        self.fields = fields
        self.files = files
    }

    public init(_ body: FormBody) {
        self.init(fields: body.fields, files: body.files)
    }

    public subscript(_ name: String) -> String? { fields[name] }

    /// A required parameter; its absence is qBittorrent's 400 ("Bad Request"; 5.2 names the parameter).
    public func required(_ name: String) throws -> String {
        guard let value = fields[name] else { throw QBitError.missingParameter(name) }
        return value
    }

    /// qBittorrent's `requireParams`: every missing name at once, in the order given (5.2's text lists them all).
    public func require(_ names: String...) throws {
        let missing = names.filter { fields[$0] == nil }
        guard missing.isEmpty else { throw QBitError.missingParameter(missing.joined(separator: ", ")) }
    }

    /// `Utils::String::parseBool`: only "true"/"false", any case; anything else is "not given".
    public func bool(_ name: String) -> Bool? {
        switch fields[name]?.lowercased() {
        case "true": true
        case "false": false
        default: nil
        }
    }

    /// An integer, or nil when absent or not a number (callers pick qBittorrent's default).
    public func int(_ name: String) -> Int? {
        fields[name].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    public func double(_ name: String) -> Double? {
        fields[name].flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }.flatMap { $0.isFinite ? $0 : nil }
    }

    /// A list split on `separator`, empty items dropped.
    public func list(_ name: String, separator: Character) -> [String]? {
        fields[name].map { $0.split(separator: separator).map(String.init).filter { !$0.isEmpty } }
    }
}
