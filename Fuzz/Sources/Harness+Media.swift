import Foundation
import Music
import RSS
import Search

/// The MP3 scanner reads files: each input is written to this one, in a folder of the process's own.
private let mp3Path: String = {
    let folder = NSTemporaryDirectory() + "qbtd-fuzz-\(getpid())"
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "qbtd-fuzz-\(getpid())") }
    return folder + "/input.mp3"
}()

extension Harness {
    /// The MP3 frame indexer: frames must lie inside the file, in order.
    static let mp3 = Harness(name: "mp3", maxLength: 16384) { input in
        guard FileManager.default.createFile(atPath: mp3Path, contents: Data(input)) else { fatalError("cannot write \(mp3Path)") }
        let scan = MP3Scan.read(mp3Path)
        guard let index = scan.index else { return }
        check(index.offsets.count == index.sizes.count && index.sizes.count == index.samples.count, "ragged index")
        var end: Int64 = 0
        for (offset, size) in zip(index.offsets, index.sizes) {
            check(offset >= end && size > 0, "frame at \(offset) overlaps the one before or is empty")
            end = offset + Int64(size)
        }
        check(end <= Int64(input.count), "a frame past the end of the file")
    }

    /// The lines a nova3 plugin prints.
    static let nova = Harness(name: "nova", maxLength: 4096) { input in
        for line in input.text.split(separator: "\n", omittingEmptySubsequences: false) {
            guard let result = SearchResult.parse(line: line, engine: "fuzz") else { continue }
            check(!result.fileName.isEmpty && !result.fileURL.isEmpty, "a result without a name or link")
        }
    }

    /// Torznab answers (RSS items with `torznab:attr`s) from an indexer.
    static let torznab = Harness(name: "torznab", maxLength: 16384) { input in
        guard let results = try? Torznab.parse(Data(input), engine: "fuzz", siteURL: "http://127.0.0.1") else { return }
        check(results.allSatisfy { !$0.fileName.isEmpty && !$0.fileURL.isEmpty }, "a result without a name or link")
    }

    /// RSS 2.0 and Atom documents.
    static let rss = Harness(name: "rss", maxLength: 16384) { input in
        _ = FeedParser.parse(Data(input), now: Date(timeIntervalSince1970: 1_700_000_000))
    }
}
