/// One parser of hostile input, driven by arbitrary bytes. A harness crashes (a trap, a failed `check`, a sanitizer
/// report) only on a bug: parsers refuse bad input with errors, which the harness ignores.
struct Harness: Sendable {
    let name: String
    /// The longest input libFuzzer makes for it (`-max_len`): long enough for the format's interesting shapes.
    let maxLength: Int
    let body: @Sendable (UnsafeRawBufferPointer) -> Void

    static let all: [Harness] = [
        .form, .multipart, .multipartStream, .range, .tus, .magnet, .metainfo, .mp3, .nova, .torznab, .rss,
    ]

    static func named(_ name: String) -> Harness? { all.first { $0.name == name } }

    /// `qbtd-fuzz --list`: each harness's name and input cap, one per line, for `Fuzz/run.sh`.
    static var listing: String { all.map { "\($0.name) \($0.maxLength)\n" }.joined() }
}

/// An invariant of a parser's answer; breaking it is a bug, reported as a crash.
func check(_ condition: @autoclosure () -> Bool, _ what: @autoclosure () -> String) {
    if !condition() { fatalError("invariant broken: \(what())") }
}

extension UnsafeRawBufferPointer {
    /// The input cut at its first newline: a header line, and what follows it.
    var headerAndRest: (String, UnsafeRawBufferPointer) {
        guard let newline = firstIndex(of: 10) else { return (String(decoding: self, as: UTF8.self), .init(start: nil, count: 0)) }
        return (String(decoding: self[..<newline], as: UTF8.self), UnsafeRawBufferPointer(rebasing: self[(newline + 1)...]))
    }

    var text: String { String(decoding: self, as: UTF8.self) }
}
