import XCTest

@testable import Streaming

final class ByteRangeTests: XCTestCase {
    func testRangesAsRFC9110Reads() {
        XCTAssertEqual(ByteRange.parse(nil, size: 100), .whole)
        XCTAssertEqual(ByteRange.parse("bytes=0-9", size: 100), .part(first: 0, last: 9))
        XCTAssertEqual(ByteRange.parse("bytes=90-", size: 100), .part(first: 90, last: 99))
        XCTAssertEqual(ByteRange.parse("bytes=-10", size: 100), .part(first: 90, last: 99))
        XCTAssertEqual(ByteRange.parse("bytes=-500", size: 100), .part(first: 0, last: 99))
        XCTAssertEqual(ByteRange.parse("bytes=50-500", size: 100), .part(first: 50, last: 99))
        XCTAssertEqual(ByteRange.parse("bytes=100-", size: 100), .unsatisfiable)
        XCTAssertEqual(ByteRange.parse("bytes=-0", size: 100), .unsatisfiable)
        XCTAssertEqual(ByteRange.parse("bytes=5-1", size: 100), .whole)
        XCTAssertEqual(ByteRange.parse("items=0-1", size: 100), .whole)
        XCTAssertEqual(ByteRange.parse("bytes=0-1, 5-9", size: 100), .part(first: 0, last: 1))
    }

    func testMediaTypes() {
        XCTAssertEqual(MediaType.of("a/Movie.MKV"), "video/x-matroska")
        XCTAssertEqual(MediaType.of("song.mp3"), "audio/mpeg")
        XCTAssertEqual(MediaType.of("dir.v2/readme"), "application/octet-stream")
        XCTAssertTrue(MediaType.isPlayable("x.mp4"))
        XCTAssertFalse(MediaType.isPlayable("x.nfo"))
    }
}
