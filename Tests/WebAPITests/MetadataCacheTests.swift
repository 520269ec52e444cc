import Foundation
import XCTest

@testable import TorrentEngine
@testable import HTTPKit
@testable import WebAPI

/// 5.2's metadata look-ups: bounded, and `add` takes both look-ups for a source.
final class MetadataCacheTests: XCTestCase {
    func entry(_ name: String) -> MetadataCache.Entry {
        var summary = MetainfoSummary()
        summary.name = name
        return .init(metainfo: Array(name.utf8), summary: summary)
    }

    func testSourcesAndEntriesAreBoundedAndForgottenTogether() {
        let cache = MetadataCache()
        for n in 0..<(MetadataCache.capacity + 10) {
            cache.remember(source: "http://x.test/\(n)", as: "id\(n)")
            cache.store(entry("t\(n)"), as: "id\(n)")
        }
        XCTAssertNil(cache.torrent(forSource: "http://x.test/0"), "the oldest went")
        XCTAssertNil(cache.entry("id9"))
        XCTAssertEqual(cache.entry("id10")?.summary.name, "t10")
        let last = MetadataCache.capacity + 9
        XCTAssertEqual(cache.torrent(forSource: "http://x.test/\(last)"), "id\(last)")
        cache.forget(source: "http://x.test/\(last)")
        XCTAssertNil(cache.torrent(forSource: "http://x.test/\(last)"))
        XCTAssertNil(cache.entry("id\(last)"))
        XCTAssertTrue(cache.startDownload("u"))
        XCTAssertFalse(cache.startDownload("u"), "one download per URL at a time")
        cache.endDownload("u")
        XCTAssertTrue(cache.startDownload("u"))
    }
}
