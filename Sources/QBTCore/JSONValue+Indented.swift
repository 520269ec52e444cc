/// Qt's `QJsonDocument::Indented` text: four spaces per level, `"key": value` (keys sorted, as QJsonObject keeps
/// them), an empty array or object still broken over two lines, and a newline at the end. qBittorrent writes its
/// files this way (`rss/exportRules` answers with one).
extension JSONValue {
    public func indented() -> [UInt8] {
        var out: [UInt8] = []
        writeIndented(into: &out, level: 0)
        out.append(UInt8(ascii: "\n"))
        return out
    }

    func writeIndented(into out: inout [UInt8], level: Int) {
        func pad(_ n: Int) { out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 4 * n)) }
        switch self {
        case .array(let items):
            out.append(contentsOf: "[\n".utf8)
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(contentsOf: ",\n".utf8) }
                pad(level + 1)
                item.writeIndented(into: &out, level: level + 1)
            }
            if !items.isEmpty { out.append(UInt8(ascii: "\n")) }
            pad(level)
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(contentsOf: "{\n".utf8)
            for (i, key) in members.keys.sorted().enumerated() {
                if i > 0 { out.append(contentsOf: ",\n".utf8) }
                pad(level + 1)
                Self.writeString(key, into: &out)
                out.append(contentsOf: ": ".utf8)
                members[key]!.writeIndented(into: &out, level: level + 1)
            }
            if !members.isEmpty { out.append(UInt8(ascii: "\n")) }
            pad(level)
            out.append(UInt8(ascii: "}"))
        default:
            write(into: &out)
        }
    }
}
