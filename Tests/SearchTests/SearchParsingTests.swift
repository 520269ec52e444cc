import Foundation
import XCTest

@testable import Search

final class SearchParsingTests: XCTestCase {
    func testResultLinesFollowQBittorrentsParser() {
        let full = SearchResult.parse(line: "magnet:?xt=1|A name|1024|5|7|http://site|http://site/d|1700000000", engine: "e")
        XCTAssertEqual(full, SearchResult(fileName: "A name", fileURL: "magnet:?xt=1", fileSize: 1024, seeders: 5, leechers: 7,
                                          siteURL: "http://site", descriptionLink: "http://site/d", engineName: "e",
                                          pubDate: 1_700_000_000))
        let short = SearchResult.parse(line: "http://x/a.torrent|n|x|y|z|http://site", engine: "")
        XCTAssertEqual(short?.fileSize, -1)
        XCTAssertEqual(short?.seeders, -1)
        XCTAssertEqual(short?.pubDate, -1)
        XCTAssertNil(SearchResult.parse(line: "only|five|fields|here|x", engine: ""))
        XCTAssertNil(SearchResult.parse(line: "garbage", engine: ""))
        XCTAssertNil(SearchResult.parse(line: "|name|1|1|1|http://site", engine: ""))
    }

    func testPluginNamesAndVersions() {
        XCTAssertTrue(SearchService.validName("my_engine2"))
        for bad in ["", "_hidden", "../x", "a.b", "a b", "é"] { XCTAssertFalse(SearchService.validName(bad), bad) }
        XCTAssertEqual(SearchService.version(of: Data("# VERSION: 1.20\nclass x: pass\n".utf8)), "1.20")
        XCTAssertEqual(SearchService.version(of: Data("#VERSION: 1.2.3\n".utf8)), "")
        XCTAssertEqual(SearchService.version(of: Data("class x: pass\n".utf8)), "")
        XCTAssertEqual(SearchService.compare("1.9", "1.10"), .orderedAscending)
        XCTAssertEqual(SearchService.compare("2.0", "1.10"), .orderedDescending)
    }

    func testTorznabURLAndFeed() throws {
        let url = Torznab.searchURL(base: "http://127.0.0.1:9117/api/v2.0/indexers/all/results/torznab/", apiKey: "k",
                                    query: "big buck", category: "tv")
        let items = URLComponents(url: try XCTUnwrap(url), resolvingAgainstBaseURL: false)?.queryItems ?? []
        XCTAssertEqual(url?.path, "/api/v2.0/indexers/all/results/torznab/api")
        XCTAssertEqual(items.first { $0.name == "cat" }?.value, "5000")
        XCTAssertEqual(items.first { $0.name == "q" }?.value, "big buck")
        let feed = """
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0" xmlns:torznab="http://torznab.com/schemas/2015/feed"><channel>
        <item><title>Big Buck Bunny</title><guid>http://idx/details/1</guid><link>http://idx/dl/1.torrent</link>
        <comments>http://idx/details/1</comments><pubDate>Mon, 02 Jan 2006 15:04:05 +0000</pubDate><size>1048576</size>
        <enclosure url="http://idx/dl/1.torrent" length="1048576" type="application/x-bittorrent"/>
        <torznab:attr name="seeders" value="12"/><torznab:attr name="peers" value="15"/>
        <torznab:attr name="magneturl" value="magnet:?xt=urn:btih:abc"/></item>
        <item><title></title><link>http://idx/dl/2.torrent</link></item>
        </channel></rss>
        """
        let results = try Torznab.parse(Data(feed.utf8), engine: "jackett", siteURL: "http://idx")
        XCTAssertEqual(results.count, 1)
        XCTAssertEqual(results[0].fileURL, "magnet:?xt=urn:btih:abc")
        XCTAssertEqual(results[0].seeders, 12)
        XCTAssertEqual(results[0].leechers, 3)
        XCTAssertEqual(results[0].fileSize, 1_048_576)
        XCTAssertEqual(results[0].pubDate, 1_136_214_245)
        XCTAssertThrowsError(try Torznab.parse(Data(#"<error code="100" description="Invalid API Key"/>"#.utf8),
                                               engine: "j", siteURL: ""))
    }

    /// A PI without data reaches Foundation's XMLParser as a NULL string it reads (the crash `qbtd-fuzz rss` found).
    func testTorznabAnswerWithAnEmptyProcessingInstruction() throws {
        let feed = #"<?x?><rss><channel><?y?><item><title>A<?z?></title><link>http://idx/1.torrent</link></item>"#
            + "<item><title>B</title><description><![CDATA[<?kept?>]]></description><link>m</link></item></channel></rss>"
        let results = try Torznab.parse(Data(feed.utf8), engine: "j", siteURL: "")
        XCTAssertEqual(results.map(\.fileName), ["A", "B"])
    }

    /// Past an error libxml2 recovers and goes on (with names that need not be UTF-8, which crashed Foundation):
    /// reading stops at the first error, with the items before it.
    func testTorznabAnswerStopsAtTheFirstError() throws {
        let feed = "<rss><channel><item><title>A</title><link>m</link></item><item><title>B</titl><link>n</link></item>"
            + "<item><title>C</title><link>o</link></item></channel></rss>"
        XCTAssertEqual(try Torznab.parse(Data(feed.utf8), engine: "j", siteURL: "").map(\.fileName), ["A"])
    }

    /// Other encodings and DTDs are refused unread (a UTF-7 answer with a DOCTYPE crashed libxml2 under Foundation).
    func testTorznabAnswerMustBePlainUTF8() {
        for (answer, reason) in [
            (Data("<?xml version=\"1.0\" encoding=\"UTF-7\"?><rss/>".utf8), "encoding utf-7"),
            (Data("<!DOCTYPE rss><rss/>".utf8), "DOCTYPE"),
            (Data([0x3C, 0x72, 0xFF, 0x3E]), "not UTF-8"),
        ] {
            XCTAssertThrowsError(try Torznab.parse(answer, engine: "j", siteURL: "")) {
                XCTAssertTrue("\($0)".contains(reason), "\($0)")
            }
        }
        XCTAssertNoThrow(try Torznab.parse(Data("<?xml version='1.0' encoding='utf-8'?><rss/>".utf8), engine: "j", siteURL: ""))
    }
}
