import Foundation
import Logging
import XCTest

@testable import Tunnel

final class TunnelTests: XCTestCase {
    func testThePublicAddressIsReadFromCloudflaredsOutput() {
        let quick = "2026-11-24T20:00:00Z INF |  https://blue-sky-river-moon.trycloudflare.com                                 |"
        XCTAssertEqual(TunnelOutput.publicURL(in: quick), "https://blue-sky-river-moon.trycloudflare.com")
        let remote = #"2026-11-24T20:00:01Z INF Updated to new configuration config="{\"ingress\":[{\"hostname\":\"music.example.org\", \"service\":\"http://127.0.0.1:8080\"}, {\"service\":\"http_status:404\"}]}" version=3"#
        XCTAssertEqual(TunnelOutput.publicURL(in: remote), "https://music.example.org")
        XCTAssertEqual(TunnelOutput.publicURL(in: #"ingress: [{"hostname": "tunes.example.net"}]"#), "https://tunes.example.net")
        for noise in ["2026-11-24T20:00:00Z INF Requesting new quick Tunnel on trycloudflare.com...",
                      "INF +--------------------------------------------------------------------------------------------+",
                      "INF Registered tunnel connection connIndex=0 location=ams01 protocol=quic",
                      "see https://developers.cloudflare.com/cloudflare-one/connections/connect-apps"] {
            XCTAssertNil(TunnelOutput.publicURL(in: noise), noise)
        }
    }

    func testArgumentsAndNames() {
        XCTAssertEqual(TunnelConfiguration(kind: .quick, origin: "http://127.0.0.1:8080").arguments,
                       ["tunnel", "--no-autoupdate", "--url", "http://127.0.0.1:8080"])
        XCTAssertEqual(TunnelConfiguration(kind: .named("music"), origin: "https://127.0.0.1:8443").arguments,
                       ["tunnel", "--no-autoupdate", "run", "--url", "https://127.0.0.1:8443", "--no-tls-verify", "music"])
        XCTAssertEqual(TunnelConfiguration.kind("quick"), .quick)
        XCTAssertEqual(TunnelConfiguration.kind("my-tunnel_1"), .named("my-tunnel_1"))
        for bad in ["", "--url", "a b", "x;rm -rf /", String(repeating: "a", count: 101)] {
            XCTAssertNil(TunnelConfiguration.kind(bad), bad)
        }
    }

    func testWithoutTheProgramItSaysHowToInstallItAndReturns() async {
        var configuration = TunnelConfiguration(kind: .quick, origin: "http://127.0.0.1:1")
        configuration.executable = "/nonexistent/cloudflared"
        let events = Events()
        let tunnel = CloudflaredTunnel(configuration: configuration, logger: Logger(label: "test")) { message, _ in events.add(message) }
        await tunnel.run()
        let state = await tunnel.state
        XCTAssertEqual(state, .missing)
        XCTAssertTrue(events.all.first?.contains("apt-get install cloudflared") == true, "\(events.all)")
    }

    func testLinesAreSplitAcrossReadsAndBounded() async {
        let (stream, sink) = AsyncStream<String>.makeStream()
        let splitter = LineSplitter(sink)
        splitter.feed(Data("first li".utf8))
        splitter.feed(Data("ne\nsecond\nthi".utf8))
        splitter.feed(Data(repeating: 0x61, count: 70_000))
        splitter.finish()
        var lines: [String] = []
        for await line in stream { lines.append(line) }
        XCTAssertEqual(Array(lines.prefix(2)), ["first line", "second"])
        XCTAssertEqual(lines.count, 3)
        XCTAssertTrue(lines[2].hasPrefix("thiaaa"))
    }
}

final class Events: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [String] = []
    func add(_ message: String) { lock.lock(); messages.append(message); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return messages }
}
