import Foundation
import XCTest

@testable import RSS

final class FeedParserTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_700_000_000)

    private func parse(_ xml: String, previous: String = "") -> ParsedFeed {
        FeedParser.parse(Data(xml.utf8), previousLastBuildDate: previous, now: now)
    }

    /// An RSS 2.0 document around the given items.
    private func rss(_ items: String, channel: String = "<title>Feed</title>") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0"><channel>\(channel)
        \(items)
        </channel></rss>
        """
    }

    private func article(_ item: String, file: StaticString = #filePath, line: UInt = #line) throws -> ParsedArticle {
        let feed = parse(rss(item))
        XCTAssertNil(feed.error, file: file, line: line)
        XCTAssertEqual(feed.articles.count, 1, file: file, line: line)
        return try XCTUnwrap(feed.articles.first, file: file, line: line)
    }

    // MARK: - Spec §10.6

    func testSpecIdentityVectors() throws {
        let plain = try article("<item><title>A</title><link>http://x/a</link></item>")
        XCTAssertEqual(plain.id, "http://x/a")
        XCTAssertEqual(plain.torrentURL, "http://x/a")
        XCTAssertEqual(plain.fields, ["title": "A", "link": "http://x/a"])
        XCTAssertNil(plain.date)

        let enclosure = try article("""
            <item><title>A</title><enclosure url="http://x/a.torrent" type="application/x-bittorrent"/>\
            <link>http://x/page</link><guid>g1</guid></item>
            """)
        XCTAssertEqual(enclosure.id, "g1")
        XCTAssertEqual(enclosure.torrentURL, "http://x/a.torrent")
        XCTAssertEqual(enclosure.fields["link"], "http://x/page")
        XCTAssertNil(enclosure.fields["enclosure"])
        XCTAssertNil(enclosure.fields["guid"])

        let magnet = try article("<item><title>A</title><link>magnet:?xt=urn:btih:abc</link></item>")
        XCTAssertEqual(magnet.torrentURL, "magnet:?xt=urn:btih:abc")
        XCTAssertNil(magnet.fields["link"])
        XCTAssertEqual(magnet.id, "magnet:?xt=urn:btih:abc")

        let titleOnly = try article("<item><title>A</title></item>")
        XCTAssertEqual(titleOnly.id, "A")
        XCTAssertNil(titleOnly.torrentURL)

        let dropped = parse(rss("<item><description>x</description></item><item><title>B</title></item>"))
        XCTAssertEqual(dropped.articles.map(\.id), ["B"])

        let twice = parse(rss("""
            <item><title>first</title><guid>same</guid></item><item><title>second</title><guid>same</guid></item>
            <item><title>third</title><guid>other</guid></item>
            """))
        XCTAssertEqual(twice.articles.map { $0.fields["title"] }, ["first", "third"])
    }

    // MARK: - RSS items

    func testRSSFeedFieldsAndOrder() throws {
        let feed = parse("""
            <?xml version="1.0"?>
            <rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"
                 xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:torrent="http://xmlns.ezrss.it/0.1/">
            <channel>
              <title>Distro news</title>
              <link>https://example.org/</link>
              <lastBuildDate>Mon, 05 Feb 2024 10:00:00 GMT</lastBuildDate>
              <item>
                <title>  Distro 1.0 released  </title>
                <link> https://example.org/item/1 </link>
                <description>  <![CDATA[<p>Hello & welcome</p>]]>  </description>
                <pubDate>Mon, 05 Feb 2024 12:00:00 +0200</pubDate>
                <author> someone@example.org </author>
                <category>Releases</category>
                <dc:creator>Someone</dc:creator>
                <content:encoded><![CDATA[<b>bold</b>]]></content:encoded>
                <torrent:magnetURI>magnet:?xt=urn:btih:0123</torrent:magnetURI>
                <torrent><contentLength>42</contentLength><infoHash>0123</infoHash></torrent>
                <comments></comments>
              </item>
              <item><title>Second</title><guid isPermaLink="false"> g2 </guid></item>
            </channel>
            </rss>
            """)
        XCTAssertNil(feed.error)
        XCTAssertFalse(feed.unchanged)
        XCTAssertEqual(feed.title, "Distro news")
        XCTAssertEqual(feed.lastBuildDate, "Mon, 05 Feb 2024 10:00:00 GMT")
        XCTAssertEqual(feed.articles.map(\.id), ["https://example.org/item/1", "g2"])
        let first = try XCTUnwrap(feed.articles.first)
        XCTAssertEqual(first.date?.formatted, "05 Feb 2024 10:00:00 +0000")
        XCTAssertEqual(first.date?.offset, 0)
        XCTAssertEqual(first.torrentURL, "https://example.org/item/1", "no torrent: the link (magnetURI is not used)")
        XCTAssertEqual(first.fields, [
            "title": "Distro 1.0 released",
            "link": "https://example.org/item/1",
            "description": "  <p>Hello & welcome</p>  ",
            "author": "someone@example.org",
            "category": "Releases",
            "creator": "Someone",
            "encoded": "<b>bold</b>",
            "magnetURI": "magnet:?xt=urn:btih:0123",
            "torrent": "420123",
            "comments": "",
        ])
        XCTAssertNil(feed.articles[1].torrentURL)
    }

    func testTorrentURLPriority() throws {
        // The last x-bittorrent enclosure or magnet link wins.
        let lastWins = try article("""
            <item><link>magnet:?xt=one</link><enclosure url="http://x/two.torrent" type="application/x-bittorrent"/>\
            <link>http://x/page</link></item>
            """)
        XCTAssertEqual(lastWins.torrentURL, "http://x/two.torrent")
        XCTAssertEqual(lastWins.fields["link"], "http://x/page")
        let magnetLast = try article("""
            <item><enclosure url="http://x/two.torrent" type="application/x-bittorrent"/>\
            <link>MAGNET:?xt=three</link><guid>g</guid></item>
            """)
        XCTAssertEqual(magnetLast.torrentURL, "MAGNET:?xt=three")
        // Untyped enclosures come next (the last one), then the link; other types are ignored.
        let untyped = try article("""
            <item><title>A</title><enclosure url="http://x/1.torrent"/><enclosure url="http://x/2.torrent" type=""/>\
            <enclosure url="http://x/a.mp3" type="audio/mpeg"/><link>http://x/page</link></item>
            """)
        XCTAssertEqual(untyped.torrentURL, "http://x/2.torrent")
        XCTAssertEqual(untyped.id, "http://x/2.torrent")
        let otherType = try article("""
            <item><title>A</title><enclosure url="http://x/a.mp3" type="audio/mpeg"/><link>http://x/page</link></item>
            """)
        XCTAssertEqual(otherType.torrentURL, "http://x/page")
        let caseMatters = try article("""
            <item><title>A</title><enclosure url="http://x/a" type="Application/X-BitTorrent"/></item>
            """)
        XCTAssertNil(caseMatters.torrentURL)
        let emptyLink = try article("<item><title>A</title><link></link></item>")
        XCTAssertEqual(emptyLink.torrentURL, "", "an empty link is a string, not null")
        XCTAssertEqual(emptyLink.id, "A")
    }

    func testDescriptionsKeepTheirTextAndChildren() throws {
        let item = try article("""
            <item><title>A</title><description>
              Some <b>bold</b> and <![CDATA[<i>raw</i>]]> text
            </description></item>
            """)
        XCTAssertEqual(item.fields["description"], "\n  Some bold and <i>raw</i> text\n")
        let nested = try article("<item><title>A</title><description><p>x</p><p>y</p></description></item>")
        XCTAssertEqual(nested.fields["description"], "xy")
    }

    func testLocalNamesIgnorePrefixes() throws {
        let item = try article("""
            <item xmlns:media="http://search.yahoo.com/mrss/"><title>Plain</title><media:title>Media</media:title>\
            <guid>g</guid></item>
            """)
        XCTAssertEqual(item.fields["title"], "Media", "a later <media:title> is a title too")
        let feed = parse("""
            <rss:rss xmlns:rss="urn:x"><rss:channel><rss:title>T</rss:title>\
            <rss:item><rss:title>A</rss:title></rss:item></rss:channel></rss:rss>
            """)
        XCTAssertNil(feed.error)
        XCTAssertEqual(feed.title, "T")
        XCTAssertEqual(feed.articles.map(\.id), ["A"])
    }

    func testReservedElementNamesDoNotBreakTheModel() throws {
        let item = try article("""
            <item><title>A</title><guid>from-guid</guid><id>from-id</id><isRead>true</isRead>\
            <torrentURL>http://evil/x</torrentURL><link>http://x/page</link></item>
            """)
        XCTAssertEqual(item.id, "from-id", "a later <id> fills the id slot, as in qBittorrent")
        XCTAssertEqual(item.torrentURL, "http://x/page")
        for key in ["id", "date", "torrentURL", "isRead"] { XCTAssertNil(item.fields[key], key) }

        let dcDate = try article("""
            <item xmlns:dc="http://purl.org/dc/elements/1.1/"><title>A</title><dc:date>2024-02-05T10:00:00+01:00</dc:date></item>
            """)
        XCTAssertEqual(dcDate.date?.formatted, "05 Feb 2024 10:00:00 +0100")
        XCTAssertNil(dcDate.fields["date"])
        let laterWins = try article("""
            <item><title>A</title><date>2024-02-05T10:00:00Z</date><pubDate>Tue, 06 Feb 2024 10:00:00 GMT</pubDate></item>
            """)
        XCTAssertEqual(laterWins.date?.formatted, "06 Feb 2024 10:00:00 +0000")
        let badDCDate = try article("<item><title>A</title><pubDate>Tue, 06 Feb 2024 10:00:00 GMT</pubDate><date>soon</date></item>")
        XCTAssertNil(badDCDate.date, "an unreadable date element leaves the date to the merge")
    }

    func testRSSDatesInItems() throws {
        let fallback = try article("<item><title>A</title><pubDate>someday</pubDate></item>")
        XCTAssertEqual(fallback.date?.date, now)
        XCTAssertEqual(fallback.date?.offset, TimeZone.current.secondsFromGMT(for: now))
        let invalid = try article("<item><title>A</title><pubDate>Mon, 05 Feb 2024 10:00:00 +02:00</pubDate></item>")
        XCTAssertNil(invalid.date)
        let empty = try article("<item><title>A</title><pubDate></pubDate></item>")
        XCTAssertEqual(empty.date?.date, now)
        let missing = try article("<item><title>A</title></item>")
        XCTAssertNil(missing.date)
    }

    // MARK: - Channel

    func testChannelTitlePrefersTheChannelsOwn() {
        let imageAfter = parse(rss("<item><title>A</title></item>",
                                   channel: "<title>Channel</title><image><title>Logo</title><url>u</url></image>"))
        XCTAssertEqual(imageAfter.title, "Channel")
        let onlyImage = parse(rss("", channel: "<image><title>Logo</title></image>"))
        XCTAssertEqual(onlyImage.title, "Logo")
        let untrimmed = parse(rss("", channel: "<title> Spaced </title><title>Last</title>"))
        XCTAssertEqual(untrimmed.title, "Last")
        let none = parse(rss("", channel: ""))
        XCTAssertEqual(none.title, "")
        XCTAssertNil(none.error)
        XCTAssertEqual(parse(rss("", channel: "<title> Spaced </title>")).title, " Spaced ")
    }

    func testUnchangedLastBuildDateStopsParsing() {
        let xml = rss("""
            <item><title>before</title></item>
            <lastBuildDate>Mon, 05 Feb 2024 10:00:00 GMT</lastBuildDate>
            <item><title>after</title></item>
            <broken>
            """)
        let same = parse(xml, previous: "Mon, 05 Feb 2024 10:00:00 GMT")
        XCTAssertTrue(same.unchanged)
        XCTAssertNil(same.error, "the rest, even broken, is not read")
        XCTAssertEqual(same.articles.map(\.id), ["before"])
        XCTAssertEqual(same.lastBuildDate, "Mon, 05 Feb 2024 10:00:00 GMT")

        let changed = parse(rss("""
            <item><title>before</title></item>
            <lastBuildDate>Mon, 05 Feb 2024 10:00:00 GMT</lastBuildDate>
            <item><title>after</title></item>
            """), previous: "Sun, 04 Feb 2024 10:00:00 GMT")
        XCTAssertFalse(changed.unchanged)
        XCTAssertEqual(changed.articles.map(\.id), ["before", "after"])
        XCTAssertEqual(changed.lastBuildDate, "Mon, 05 Feb 2024 10:00:00 GMT")

        let repeated = parse(rss("""
            <lastBuildDate>X</lastBuildDate><item><title>a</title></item><lastBuildDate>X</lastBuildDate>\
            <item><title>b</title></item>
            """))
        XCTAssertTrue(repeated.unchanged, "a repeat within one document counts too")
        XCTAssertEqual(repeated.articles.map(\.id), ["a"])

        let empty = parse(rss("<lastBuildDate></lastBuildDate><item><title>a</title></item>"))
        XCTAssertFalse(empty.unchanged)
        XCTAssertEqual(empty.lastBuildDate, "")
    }

    // MARK: - Atom

    func testAtomFeed() throws {
        let feed = parse("""
            <?xml version="1.0" encoding="utf-8"?>
            <feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://example.org/">
              <title>Atom news</title>
              <updated>2024-02-05T10:00:00Z</updated>
              <author><name>Feed author</name></author>
              <entry>
                <title> First </title>
                <link rel="alternate" href="posts/1"/>
                <id> urn:uuid:1 </id>
                <updated>2024-02-05T12:00:00+02:00</updated>
                <published>2024-02-04T09:00:00Z</published>
                <author><name> Alice </name><email>a@example.org</email></author>
                <summary>   </summary>
                <content type="html">&lt;p&gt;Body&lt;/p&gt;</content>
                <summary>ignored</summary>
                <category term="x"/>
              </entry>
              <entry>
                <title>Second</title>
                <link href="magnet:?xt=urn:btih:abc"/>
                <link>https://absolute.example/2</link>
                <updated>not a date</updated>
                <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>Rich</p> text</div></content>
              </entry>
              <entry><summary>no identity</summary></entry>
            </feed>
            """)
        XCTAssertNil(feed.error)
        XCTAssertEqual(feed.title, "Atom news")
        XCTAssertEqual(feed.lastBuildDate, "2024-02-05T10:00:00Z")
        XCTAssertEqual(feed.articles.count, 2)
        let first = try XCTUnwrap(feed.articles.first)
        XCTAssertEqual(first.id, "urn:uuid:1")
        XCTAssertEqual(first.date?.formatted, "05 Feb 2024 12:00:00 +0200")
        XCTAssertEqual(first.torrentURL, "https://example.org/posts/1")
        XCTAssertEqual(first.fields, [
            "title": "First", "link": "https://example.org/posts/1", "published": "2024-02-04T09:00:00Z",
            "author": "Alice", "description": "<p>Body</p>", "category": "",
        ])
        let second = feed.articles[1]
        XCTAssertEqual(second.torrentURL, "magnet:?xt=urn:btih:abc")
        XCTAssertEqual(second.id, "magnet:?xt=urn:btih:abc")
        XCTAssertEqual(second.fields["link"], "https://example.org/https://absolute.example/2",
                       "xml:base is concatenated even to absolute links (qBittorrent's quirk)")
        XCTAssertEqual(second.fields["description"], "Rich text")
        XCTAssertEqual(second.date?.date, now, "an unreadable <updated> takes the parse time")
    }

    func testAtomLinksAndIdentity() throws {
        let feed = parse("""
            <atom:feed xmlns:atom="http://www.w3.org/2005/Atom"><atom:title>T</atom:title>
            <atom:entry><atom:title>A</atom:title><atom:link rel="enclosure" type="application/x-bittorrent"
              href="http://x/a.torrent"/><atom:link rel="alternate" href="http://x/page"/></atom:entry>
            <atom:entry><atom:title>B</atom:title><atom:link xmlns:atom="http://www.w3.org/2005/Atom">
              http://x/text </atom:link></atom:entry>
            <atom:entry><atom:title>C</atom:title><atom:link rel="self"/></atom:entry>
            </atom:feed>
            """)
        XCTAssertNil(feed.error)
        XCTAssertEqual(feed.title, "T")
        XCTAssertEqual(feed.articles.count, 3)
        XCTAssertEqual(feed.articles[0].fields["link"], "http://x/page", "the last link wins, whatever its rel")
        XCTAssertEqual(feed.articles[0].torrentURL, "http://x/page")
        XCTAssertEqual(feed.articles[1].fields["link"], "http://x/text", "no attributes (besides xmlns): the text")
        XCTAssertEqual(feed.articles[2].fields["link"], "", "attributes but no href: empty")
        XCTAssertEqual(feed.articles[2].id, "C")
        XCTAssertEqual(parse("<feed><updated>U</updated></feed>", previous: "U").unchanged, true)
    }

    // MARK: - Entities

    func testXHTMLEntitiesAreResolved() throws {
        let item = try article("""
            <item><title>Caf&eacute;&nbsp;&mdash;&hellip;&amp;&lt;&#233;&#x41;&Omega;</title>\
            <description><![CDATA[&nbsp;stays]]> &copy;</description><link>http://x/?a=1&amp;b=2</link></item>
            """)
        XCTAssertEqual(item.fields["title"], "Caf\u{E9}\u{A0}\u{2014}\u{2026}&<\u{E9}A\u{3A9}")
        XCTAssertEqual(item.fields["description"], "&nbsp;stays \u{A9}")
        XCTAssertEqual(item.fields["link"], "http://x/?a=1&b=2")
        let attribute = try article("<item><title>A</title><enclosure url=\"http://x/&eacute;.torrent\"/></item>")
        XCTAssertEqual(attribute.torrentURL, "http://x/\u{E9}.torrent")
        let comment = try article("<item><!-- &bogus; --><title>A&trade;</title></item>")
        XCTAssertEqual(comment.fields["title"], "A\u{2122}")
        XCTAssertEqual(XHTMLEntities.codePoints.count, 248)
    }

    func testUndeclaredEntityIsAnXMLError() {
        let feed = parse(rss("<item><title>kept</title></item>\n<item><title>bad &bogus; entity</title></item>"))
        XCTAssertEqual(feed.articles.map(\.id), ["kept"])
        let error = feed.error ?? ""
        XCTAssertTrue(error.hasPrefix("Entity 'bogus' not declared. (line: 4, column: "), error)
    }

    // MARK: - Broken and hostile documents

    func testMalformedXMLKeepsEarlierArticles() {
        let feed = parse("""
            <rss><channel><title>T</title>
            <item><title>one</title></item>
            <item><title>two</title><guid>g2</guid><description>oops</descriptio></item>
            <item><title>three</title></item>
            </channel></rss>
            """)
        XCTAssertEqual(feed.title, "T")
        XCTAssertEqual(feed.articles.map(\.id), ["one", "g2"], "the broken item keeps what it had")
        XCTAssertNil(feed.articles[1].fields["description"], "an element cut by the error gives nothing")
        let error = feed.error ?? ""
        XCTAssertTrue(error.hasPrefix("Opening and ending tag mismatch. (line: 3, column: "), error)
        XCTAssertTrue(error.hasSuffix(")."), error)
    }

    func testTruncatedDocument() {
        let feed = parse("<rss><channel><title>T</title><item><title>one</title></item><item><guid>g</guid><title>tw")
        XCTAssertEqual(feed.articles.map(\.id), ["one", "g"])
        let error = feed.error ?? ""
        XCTAssertTrue(error.hasPrefix("Premature end of document. (line: 1, column: "), error)
    }

    /// `qbtd-fuzz rss` found it: libxml2 hands a PI without data to Foundation's handler as NULL, which it reads.
    func testProcessingInstructionsWithoutDataDoNotCrash() throws {
        let feed = parse("<?x?><rss version=\"2.0\"><?y?><channel><item><title>A<?z?></title><?w  ?></item></channel></rss>")
        XCTAssertNil(feed.error)
        XCTAssertEqual(feed.articles.map(\.id), ["A"])
        let cdata = try article("<item><title>T</title><description><![CDATA[<?kept?>]]></description></item>")
        XCTAssertEqual(cdata.fields["description"], "<?kept?>", "CDATA is left as written")
        let error = parse("<?p?>\n<rss><channel><item><title>one</title></itm></channel></rss>").error ?? ""
        XCTAssertTrue(error.hasPrefix("Opening and ending tag mismatch. (line: 2, column: "), error)
    }

    func testErrorPositionsCountTheOriginalText() {
        // "&eacute;" becomes "&#233;" for the parser; the column still counts the document's characters.
        let xml = "<rss><channel><title>caf&eacute; é</title>\n<item><title>x</titl></item></channel></rss>"
        let error = parse(xml).error ?? ""
        XCTAssertEqual(error, "Opening and ending tag mismatch. (line: 2, column: 22, offset: 64).")
        let shifted = parse("<rss><channel>\n<title>&eacute;&eacute;</titlx></channel></rss>").error ?? ""
        XCTAssertEqual(shifted, "Opening and ending tag mismatch. (line: 2, column: 32, offset: 46).")
    }

    func testDocumentsThatAreNotFeeds() {
        let rdf = parse("""
            <?xml version="1.0"?>
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
              <channel rdf:about="http://x/"><title>RDF</title></channel>
              <item rdf:about="http://x/1"><title>One</title><link>http://x/1</link></item>
            </rdf:RDF>
            """)
        XCTAssertEqual(rdf.error, "Invalid RSS feed.")
        XCTAssertTrue(rdf.articles.isEmpty)
        XCTAssertEqual(parse("<html><body>Not a feed</body></html>").error, "Invalid RSS feed.")
        XCTAssertEqual(parse("<rss version=\"2.0\"><foo><channel><title>x</title></channel></foo></rss>").error,
                       "Invalid RSS feed.", "the channel must be a child of <rss>")
        XCTAssertEqual(parse("<rss/>").error, "Invalid RSS feed.")
        XCTAssertTrue(parse("").error?.hasPrefix("Premature end of document.") ?? false)
        XCTAssertNotNil(parse("   ").error)
        XCTAssertNotNil(parse("just text").error)
        XCTAssertTrue(parse("<rss><channel/></rss><rss/>").error?.hasPrefix("Extra content at end of document.") ?? false)
    }

    func testEntityExpansionIsRefused() {
        var laughs = "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n<!ENTITY lol \"lol\">\n"
        var previous = "lol"
        for level in 1...9 {
            laughs += "<!ENTITY lol\(level) \"\(String(repeating: "&\(previous);", count: 10))\">\n"
            previous = "lol\(level)"
        }
        laughs += "]>\n<rss><channel><title>&lol9;</title><item><title>&lol9;</title></item></channel></rss>\n"
        let feed = parse(laughs)
        XCTAssertEqual(feed.error, "Entity declarations are not accepted.")
        XCTAssertTrue(feed.articles.isEmpty)

        let external = parse("<?xml version=\"1.0\"?><!DOCTYPE rss [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><rss>&x;</rss>")
        XCTAssertEqual(external.error, "Entity declarations are not accepted.")
        // A DOCTYPE without declarations is fine.
        let doctype = parse("""
            <?xml version="1.0"?><!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN"
             "http://my.netscape.com/publish/formats/rss-0.91.dtd"><rss><channel><title>T</title></channel></rss>
            """)
        XCTAssertNil(doctype.error)
        XCTAssertEqual(doctype.title, "T")
    }

    func testDeepNesting() {
        let depth = 100_000
        let nested = String(repeating: "<x>", count: depth) + "<item><title>deep</title></item>"
            + String(repeating: "</x>", count: depth)
        let feed = parse(rss("<item><title>A</title></item>" + nested))
        XCTAssertNil(feed.error)
        XCTAssertEqual(feed.articles.map(\.id), ["A", "deep"], "items are found at any depth under the channel")
        let unclosed = parse(rss("<item><title>A</title></item>" + String(repeating: "<x>", count: depth)))
        XCTAssertEqual(unclosed.articles.map(\.id), ["A"])
        XCTAssertNotNil(unclosed.error)
    }

    func testOversizedDocumentIsRefused() {
        var data = Data(rss("<item><title>A</title></item>").utf8)
        data.append(Data(repeating: 0x20, count: FeedParser.maximumSize - data.count))
        // Exactly the maximum is read (libxml2 is fed in chunks: it refuses single inputs over 10 MB).
        XCTAssertNil(FeedParser.parse(data, now: now).error)
        data.append(0x20)
        let feed = FeedParser.parse(data, now: now)
        XCTAssertNotNil(feed.error)
        XCTAssertTrue(feed.articles.isEmpty)
    }

    func testEncodings() throws {
        let text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?><rss><channel><title>Ünï</title><item><title>é</title></item></channel></rss>"
        var utf16 = Data([0xFF, 0xFE])
        for unit in text.utf16 { utf16.append(UInt8(unit & 0xFF)); utf16.append(UInt8(unit >> 8)) }
        let wide = FeedParser.parse(utf16, now: now)
        XCTAssertNil(wide.error)
        XCTAssertEqual(wide.title, "Ünï")
        XCTAssertEqual(wide.articles.first?.id, "é")

        var bigEndian = Data()
        for unit in text.utf16 { bigEndian.append(UInt8(unit >> 8)); bigEndian.append(UInt8(unit & 0xFF)) }
        XCTAssertEqual(FeedParser.parse(bigEndian, now: now).title, "Ünï")

        var latin1 = Data("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss><channel><title>Caf".utf8)
        latin1.append(0xE9)
        latin1.append(Data("&nbsp;</title></channel></rss>".utf8))
        XCTAssertEqual(FeedParser.parse(latin1, now: now).title, "Caf\u{E9}\u{A0}")

        let utf7 = parse("<?xml version=\"1.0\" encoding=\"UTF-7\"?><rss>+ADw-!ENTITY</rss>")
        XCTAssertEqual(utf7.error, "Unsupported encoding: UTF-7.")
    }

    func testLargeFeedParses() {
        let items = (0..<5000).map { "<item><title>Item \($0)</title><guid>\($0)</guid><pubDate>Mon, 05 Feb 2024 10:00:00 GMT</pubDate></item>" }
        let started = Date()
        let feed = parse(rss(items.joined(separator: "\n")))
        XCTAssertNil(feed.error)
        XCTAssertEqual(feed.articles.count, 5000)
        XCTAssertLessThan(Date().timeIntervalSince(started), 20)
    }

    func testRandomAndMutatedInputsNeverCrash() {
        var generator = FeedTestRandom(seed: 0x5EED)
        let seeds = [
            rss("""
                <item><title>A &amp; B&nbsp;</title><link>magnet:?xt=1</link><description><![CDATA[x]]></description>\
                <pubDate>Mon, 05 Feb 2024 10:00:00 GMT</pubDate><enclosure url="u" type="application/x-bittorrent"/></item>
                """, channel: "<title>T</title><lastBuildDate>L</lastBuildDate><image><title>I</title></image>"),
            """
            <feed xmlns="http://www.w3.org/2005/Atom" xml:base="b/"><title>T</title><updated>U</updated>\
            <entry><id>1</id><link href="x"/><author><name>n</name></author><content>c</content>\
            <updated>2024-02-05T10:00:00Z</updated></entry></feed>
            """,
        ].map { Array($0.utf8) }
        let fragments = ["<", ">", "</", "/>", "&", ";", "&nbsp;", "&#", "&#x", "<![CDATA[", "]]>", "<!--", "-->",
                         "<!DOCTYPE x>", "<?xml version=\"1.0\"?>", "\"", "'", "=", "<item>", "</item>", "<entry>",
                         "<title>", "</title>", "\u{0}", "\u{FEFF}", "é", "\u{1F600}", "<rss>", "<channel>", "<feed>"]
            .map { Array($0.utf8) }
        for round in 0..<2000 {
            var bytes: [UInt8]
            if round % 4 == 0 {
                bytes = (0..<Int(generator.next() % 300)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            } else {
                bytes = seeds[Int(generator.next() % UInt64(seeds.count))]
                for _ in 0..<(1 + Int(generator.next() % 8)) {
                    let position = bytes.isEmpty ? 0 : Int(generator.next() % UInt64(bytes.count))
                    switch generator.next() % 4 {
                    case 0 where !bytes.isEmpty: bytes.remove(at: position)
                    case 1: bytes.insert(UInt8(truncatingIfNeeded: generator.next()), at: position)
                    case 2: bytes.insert(contentsOf: fragments[Int(generator.next() % UInt64(fragments.count))], at: position)
                    default: bytes = Array(bytes.prefix(position))
                    }
                }
            }
            let feed = FeedParser.parse(Data(bytes), previousLastBuildDate: round % 3 == 0 ? "L" : "", now: now)
            XCTAssertTrue(feed.error != nil || feed.articles.allSatisfy { !$0.id.isEmpty })
            XCTAssertEqual(Set(feed.articles.map(\.id)).count, feed.articles.count)
        }
    }
}
