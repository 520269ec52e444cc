import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Human-readable figures, tables that fit the terminal, JSON for scripts, and progress on stderr.
enum Output {
    static var stdoutIsTTY: Bool { isatty(STDOUT_FILENO) == 1 }
    static var stderrIsTTY: Bool { isatty(STDERR_FILENO) == 1 }

    /// The terminal's width; `COLUMNS` when set; unlimited when stdout is not a terminal (pipes get whole lines).
    static var width: Int? {
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 20 { return columns }
        guard stdoutIsTTY else { return nil }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 { return Int(size.ws_col) }
        return 100
    }

    static func bytes(_ n: Int64) -> String {
        if n < 0 { return "-" }
        let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
        var value = Double(n), unit = 0
        while value >= 1024, unit < units.count - 1 { value /= 1024; unit += 1 }
        return unit == 0 ? "\(n) B" : String(format: value < 10 ? "%.2f %@" : value < 100 ? "%.1f %@" : "%.0f %@", value, units[unit])
    }

    /// "all torrents", "1 torrent", "3 torrents".
    static func torrents(_ hashes: [String]) -> String {
        hashes == ["all"] ? "all torrents" : "\(hashes.count) torrent\(hashes.count == 1 ? "" : "s")"
    }

    static func rate(_ n: Int64) -> String { n <= 0 ? "0" : bytes(n) + "/s" }
    static func limit(_ n: Int64) -> String { n <= 0 ? "unlimited" : bytes(n) + "/s" }
    static func percent(_ p: Double) -> String { String(format: "%.1f%%", p * 100) }

    static func duration(_ seconds: Int64) -> String {
        if seconds < 0 || seconds >= 8_640_000 { return "∞" }
        let d = seconds / 86400, h = seconds / 3600 % 24, m = seconds / 60 % 60, s = seconds % 60
        return d > 0 ? "\(d)d \(h)h" : h > 0 ? "\(h)h \(m)m" : m > 0 ? "\(m)m \(s)s" : "\(s)s"
    }

    static func date(_ epoch: Int64) -> String {
        guard epoch > 0 else { return "-" }
        let f = DateFormatter()
        f.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return f.string(from: Date(timeIntervalSince1970: TimeInterval(epoch)))
    }

    /// A table whose `flex` column shrinks (with …) so each line fits the terminal.
    static func table(_ header: [String], _ rows: [[String]], flex: Int = 0, rightAligned: Set<Int> = []) -> String {
        var widths = header.indices.map { i in ([header[i]] + rows.map { $0[i] }).map(\.count).max() ?? 0 }
        if let width, !widths.isEmpty {
            let fixed = widths.enumerated().filter { $0.offset != flex }.map(\.element).reduce(0, +) + 2 * (widths.count - 1)
            widths[flex] = max(8, min(widths[flex], width - fixed))
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in
                var text = cell
                if text.count > widths[i] { text = String(text.prefix(widths[i] - 1)) + "…" }
                let pad = String(repeating: " ", count: widths[i] - text.count)
                return rightAligned.contains(i) ? pad + text : (i == cells.count - 1 ? text : text + pad)
            }.joined(separator: "  ")
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }

    /// JSON with sorted keys, the same bytes for the same data; pretty, or one line (for streams of records).
    static func json(_ value: Any, pretty: Bool = true) -> String {
        var options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed]
        if pretty { options.insert(.prettyPrinted) }
        let data = (try? JSONSerialization.data(withJSONObject: value, options: options)) ?? Data("null".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    static func printJSON(_ value: Any) { print(json(value)) }

    static func encodable<T: Encodable>(_ value: T) -> Any {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? JSONSerialization.jsonObject(with: encoder.encode(value), options: [.fragmentsAllowed])) ?? NSNull()
    }

    static func error(_ message: String) {
        FileHandle.standardError.write(Data("qbt: \(message)\n".utf8))
    }

    static func note(_ message: String) {
        FileHandle.standardError.write(Data("\(message)\n".utf8))
    }
}

/// A one-line progress bar redrawn on stderr when it is a terminal; otherwise a line per whole ten percent.
struct ProgressBar {
    let label: String
    private var lastDecile = -1

    init(_ label: String) { self.label = label }

    mutating func update(_ fraction: Double, detail: String = "") {
        let f = min(max(fraction, 0), 1)
        if Output.stderrIsTTY {
            let cells = 30, filled = Int(f * Double(cells))
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: cells - filled)
            FileHandle.standardError.write(Data("\r\u{1B}[K\(label) \(bar) \(Output.percent(f)) \(detail)".utf8))
        } else {
            let decile = Int(f * 10)
            if decile != lastDecile { lastDecile = decile; Output.note("\(label) \(Output.percent(f)) \(detail)") }
        }
    }

    func finish() { if Output.stderrIsTTY { FileHandle.standardError.write(Data("\n".utf8)) } }
}

/// A short spinner-free status line for searches and waits.
func status(_ text: String) {
    if Output.stderrIsTTY { FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8)) }
}

func endStatus() { if Output.stderrIsTTY { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) } }
