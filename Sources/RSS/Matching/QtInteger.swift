/// Integer parsing as Qt's `QString::toInt` does it: surrounding whitespace ignored, an optional sign,
/// ASCII digits only, and the value must fit in 32 bits.
enum QtInteger {
    /// nil when Qt's conversion would fail.
    static func parse<S: StringProtocol>(_ text: S) -> Int? {
        var scalars = Substring(text).unicodeScalars[...]
        while let first = scalars.first, first.properties.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.properties.isWhitespace { scalars.removeLast() }
        var negative = false
        if let sign = scalars.first, sign == "+" || sign == "-" {
            negative = sign == "-"
            scalars.removeFirst()
        }
        guard !scalars.isEmpty else { return nil }
        var magnitude = 0
        for scalar in scalars {
            guard ("0"..."9").contains(scalar) else { return nil }
            magnitude = magnitude * 10 + Int(scalar.value - 48)
            guard magnitude <= 1 << 31 else { return nil }
        }
        let value = negative ? -magnitude : magnitude
        return Int32(exactly: value) == nil ? nil : value
    }

    /// `parse`, with 0 for text Qt would not convert.
    static func value<S: StringProtocol>(_ text: S) -> Int {
        parse(text) ?? 0
    }
}
