import Streaming
import Uploads

extension Harness {
    /// `Range` headers against files of several sizes: a part must lie inside the file.
    static let range = Harness(name: "range", maxLength: 256) { input in
        let header = input.text
        for size: Int64 in [0, 1, 2, 1000, 1 << 40, Int64.max] {
            switch ByteRange.parse(header, size: size) {
            case .part(let first, let last):
                check(0 <= first && first <= last && last < size, "range \(first)-\(last) outside a file of \(size)")
            case .whole, .unsatisfiable:
                break
            }
        }
    }

    /// tus headers, one per line: `Upload-Metadata`, `Upload-Concat`, `Upload-Checksum`.
    static let tus = Harness(name: "tus", maxLength: 2048) { input in
        let lines = input.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.indices.contains(0) { _ = try? TusHeaders.metadata(lines[0]) }
        if lines.indices.contains(1), case .final(let ids)? = try? TusHeaders.concat(lines[1]) {
            check(ids.allSatisfy { !$0.contains("/") }, "an upload id with a slash")
        }
        if lines.indices.contains(2) { _ = try? TusHeaders.checksum(lines[2]) }
    }
}
