import Foundation
import TorrentEngine

/// Reads the IP filter files qBittorrent reads, chosen by extension as it chooses: eMule `.dat`
/// (`first - last , level , description`, levels under 128 blocked), PeerGuardian text `.p2p`
/// (`description:first-last`) and PeerGuardian binary `.p2b` (versions 1 to 3). Lines that cannot be read are
/// counted and skipped; a file with nothing readable in it is an error, so the caller keeps the filter it had.
public enum IPFilterParser {
    public struct Parsed: Sendable, Equatable {
        public var rules: IPFilterRules
        /// Lines (or records) that were not ranges, comments or blank.
        public var skipped: Int
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case unreadable(String, reason: String)
        case unknownFormat(String)
        case nothingReadable(String, skipped: Int)
        case corrupt(String)

        public var description: String {
            switch self {
            case .unreadable(let path, let reason): "cannot read the IP filter \(path): \(reason)"
            case .unknownFormat(let path): "\(path) is not an IP filter qbtd reads: name it .dat (eMule), .p2p or .p2b (PeerGuardian)"
            case .nothingReadable(let path, let skipped): "\(path) holds no address range (\(skipped) line(s) could not be read)"
            case .corrupt(let path): "\(path) is not a valid PeerGuardian .p2b file"
            }
        }
    }

    /// Reads and parses a file (blocking: call it off the concurrency pool).
    public static func parse(file path: String) throws -> Parsed {
        let ext = (path as NSString).pathExtension.lowercased()
        guard ["dat", "p2p", "p2b"].contains(ext) else { throw Failure.unknownFormat(path) }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw Failure.unreadable(path, reason: (error as NSError).localizedFailureReason ?? error.localizedDescription)
        }
        let parsed: Parsed
        switch ext {
        case "p2b": parsed = try p2b(Array(data), path: path)
        case "p2p": parsed = text(data, line: p2pLine)
        default: parsed = text(data, line: datLine)
        }
        guard !parsed.rules.isEmpty else { throw Failure.nothingReadable(path, skipped: parsed.skipped) }
        return parsed
    }

    enum Line {
        case range(String, String)
        case ignored
        case bad
    }

    static func text(_ data: Data, line read: (Substring) -> Line) -> Parsed {
        var rules = IPFilterRules(), skipped = 0
        let content = String(decoding: data, as: UTF8.self)
        for raw in content.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix("//") { continue }
            switch read(Substring(line)) {
            case .ignored: continue
            case .bad: skipped += 1
            case .range(let first, let last):
                if add(first, last, to: &rules) == false { skipped += 1 }
            }
        }
        return Parsed(rules: rules, skipped: skipped)
    }

    /// `001.009.096.105 - 001.009.096.110 , 000 , description`: blocked when the level is under 128.
    static func datLine(_ line: Substring) -> Line {
        let fields = line.split(separator: ",", maxSplits: 2, omittingEmptySubsequences: false)
        guard let range = fields.first, let dash = range.firstIndex(of: "-") else { return .bad }
        if fields.count > 1 {
            guard let level = Int(fields[1].trimmingCharacters(in: .whitespaces)) else { return .bad }
            if level > 127 { return .ignored }
        }
        return .range(range[..<dash].trimmingCharacters(in: .whitespaces),
                      range[range.index(after: dash)...].trimmingCharacters(in: .whitespaces))
    }

    /// `description:first-last`; the description may hold colons and so do IPv6 ranges, so the range is what
    /// follows the first colon after which both ends read as addresses.
    static func p2pLine(_ line: Substring) -> Line {
        var from = line.startIndex
        while let colon = line[from...].firstIndex(of: ":") {
            let range = line[line.index(after: colon)...]
            if let dash = range.firstIndex(of: "-") {
                let first = range[..<dash].trimmingCharacters(in: .whitespaces)
                let last = range[range.index(after: dash)...].trimmingCharacters(in: .whitespaces)
                if IPv6.v4(first) != nil && IPv6.v4(last) != nil || IPv6(first) != nil && IPv6(last) != nil {
                    return .range(first, last)
                }
            }
            from = line.index(after: colon)
        }
        return .bad
    }

    /// One range into the rules; false when the addresses are not of one family or out of order.
    static func add(_ first: String, _ last: String, to rules: inout IPFilterRules) -> Bool {
        if let a = IPv6.v4(first), let b = IPv6.v4(last) {
            guard a <= b else { return false }
            rules.v4.append(a...b)
            return true
        }
        if let a = IPv6(first), let b = IPv6(last) {
            guard a <= b else { return false }
            rules.v6.append(a...b)
            return true
        }
        return false
    }

    /// PeerGuardian binary: `FF FF FF FF 'P' '2' 'B'` and a version; v1/v2 are records of a NUL-terminated name
    /// and two big-endian IPv4 addresses; v3 lists the names first, then (name index, first, last) records.
    static func p2b(_ bytes: [UInt8], path: String) throws -> Parsed {
        var reader = ByteReader(bytes)
        guard reader.take(4) == [0xFF, 0xFF, 0xFF, 0xFF], reader.take(3) == Array("P2B".utf8),
              let version = reader.byte(), (1...3).contains(version) else { throw Failure.corrupt(path) }
        var rules = IPFilterRules(), skipped = 0
        func range(_ a: UInt32, _ b: UInt32) {
            if a <= b { rules.v4.append(a...b) } else { skipped += 1 }
        }
        if version < 3 {
            while !reader.atEnd {
                guard reader.skipName(), let a = reader.uint32(), let b = reader.uint32() else { throw Failure.corrupt(path) }
                range(a, b)
            }
        } else {
            guard let names = reader.uint32() else { throw Failure.corrupt(path) }
            for _ in 0..<names { guard reader.skipName() else { throw Failure.corrupt(path) } }
            guard let count = reader.uint32(), Int(count) <= reader.remaining / 12 else { throw Failure.corrupt(path) }
            for _ in 0..<count {
                guard reader.uint32() != nil, let a = reader.uint32(), let b = reader.uint32() else { throw Failure.corrupt(path) }
                range(a, b)
            }
        }
        return Parsed(rules: rules, skipped: skipped)
    }

    struct ByteReader {
        let bytes: [UInt8]
        var at = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        var atEnd: Bool { at >= bytes.count }
        var remaining: Int { bytes.count - at }
        mutating func take(_ n: Int) -> [UInt8]? {
            guard remaining >= n else { return nil }
            defer { at += n }
            return Array(bytes[at..<at + n])
        }
        mutating func byte() -> UInt8? { take(1)?.first }
        mutating func uint32() -> UInt32? { take(4).map { $0.reduce(0) { $0 << 8 | UInt32($1) } } }
        /// Steps over a NUL-terminated name.
        mutating func skipName() -> Bool {
            guard let end = bytes[at...].firstIndex(of: 0) else { return false }
            at = end + 1
            return true
        }
    }
}
