extension Array where Element == UInt8 {
    /// Whether `needle` occurs anywhere in the bytes.
    public func containsSequence(_ needle: [UInt8]) -> Bool {
        guard let first = needle.first, needle.count <= count else { return needle.isEmpty }
        var i = 0
        let last = count - needle.count
        while i <= last {
            if self[i] == first, self[i..<(i + needle.count)].elementsEqual(needle) { return true }
            i += 1
        }
        return false
    }
}
