import EngineTestSupport
import Foundation
import Store
import SystemKit
import XCTest

@testable import QBTCore
@testable import TorrentEngine

// MARK: - IP filter files

/// `IPFilterParser` over files written into a temporary folder: eMule `.dat`, PeerGuardian `.p2p` and `.p2b`.
final class IPFilterParserTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = try temporaryFolder("qbtd-ipfilter") }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// Writes `text` (UTF-8) to `name` in the test's folder; returns its path.
    func write(_ name: String, _ text: String) throws -> String {
        try write(name, bytes: Array(text.utf8))
    }

    func write(_ name: String, bytes: [UInt8]) throws -> String {
        let url = dir.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    func r(_ a: UInt32, _ b: UInt32) -> ClosedRange<UInt32> { a...b }

    func v6(_ a: String, _ b: String) -> ClosedRange<IPv6> { IPv6(a)!...IPv6(b)! }

    /// Asserts that parsing `path` throws exactly `expected`.
    func assertFails(_ path: String, _ expected: IPFilterParser.Failure, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try IPFilterParser.parse(file: path), file: file, line: line) { error in
            XCTAssertEqual(error as? IPFilterParser.Failure, expected, "\(error)", file: file, line: line)
        }
    }

    // MARK: .dat

    func testDatReadsZeroPaddedOctetsAsDecimal() throws {
        let path = try write("filter.dat", "001.009.096.105 - 001.009.096.110 , 000 , Some Org\n")
        let parsed = try IPFilterParser.parse(file: path)
        XCTAssertEqual(parsed.rules.v4, [r(0x0109_6069, 0x0109_606E)])
        XCTAssertEqual(parsed.rules.v6, [])
        XCTAssertEqual(parsed.skipped, 0)
    }

    func testDatBlocksLevelsUnder128AndIgnoresTheRestWithoutCountingThem() throws {
        let path = try write("levels.dat", """
            1.0.0.0 - 1.0.0.255 , 127 , blocked
            2.0.0.0 - 2.0.0.255 , 128 , allowed
            3.0.0.0 - 3.0.0.255 , 255 , allowed
            4.0.0.0 - 4.0.0.255
            """)
        let parsed = try IPFilterParser.parse(file: path)
        XCTAssertEqual(parsed.rules.v4, [r(0x0100_0000, 0x0100_00FF), r(0x0400_0000, 0x0400_00FF)])
        XCTAssertEqual(parsed.skipped, 0)
    }

    func testDatIgnoresCommentsAndBlankLines() throws {
        let path = try write("comments.dat", """
            # a comment
            // another comment

               \t
              # an indented comment
            10.0.0.0 - 10.0.0.9 , 0 , x
            """)
        let parsed = try IPFilterParser.parse(file: path)
        XCTAssertEqual(parsed.rules.v4, [r(0x0A00_0000, 0x0A00_0009)])
        XCTAssertEqual(parsed.skipped, 0)
    }

    func testDatCountsMalformedLinesAsSkipped() throws {
        let path = try write("malformed.dat", """
            no range on this line
            5.0.0.0 - 5.0.0.9 , high , level is not a number
            6.0.0.0 - 6.0.0.300 , 0 , octet out of range
            7.0.0.0 - ::1 , 0 , mixed families
            8.0.0.0 - 8.0.0.1 , 0 , good
            """)
        let parsed = try IPFilterParser.parse(file: path)
        XCTAssertEqual(parsed.rules.v4, [r(0x0800_0000, 0x0800_0001)])
        XCTAssertEqual(parsed.skipped, 4)
    }

    func testDatSkipsReversedRanges() throws {
        let path = try write("reversed.dat", """
            9.0.0.9 - 9.0.0.1 , 0 , reversed
            9.0.0.1 - 9.0.0.9 , 0 , in order
            9.0.0.5 - 9.0.0.5 , 0 , one address
            """)
        let parsed = try IPFilterParser.parse(file: path)
        XCTAssertEqual(parsed.rules.v4, [r(0x0900_0001, 0x0900_0009), r(0x0900_0005, 0x0900_0005)])
        XCTAssertEqual(parsed.skipped, 1)
    }

    func testDatReadsWindowsLineEndings() throws {
        let path = try write("crlf.dat", "# header\r\n1.2.3.4 - 1.2.3.5 , 0 , a\r\n\r\n1.2.3.8 - 1.2.3.9 , 0 , b\r\n")
        let parsed = try IPFilterParser.parse(file: path)
        XCTAssertEqual(parsed.rules.v4, [r(0x0102_0304, 0x0102_0305), r(0x0102_0308, 0x0102_0309)])
        XCTAssertEqual(parsed.skipped, 0)
    }

    func testExtensionIsMatchedWithoutRegardToCase() throws {
        let path = try write("UPPER.DAT", "1.2.3.4 - 1.2.3.5 , 0 , a\n")
        XCTAssertEqual(try IPFilterParser.parse(file: path).rules.v4, [r(0x0102_0304, 0x0102_0305)])
    }

    // MARK: .p2p

    func testP2PTakesTheRangeAfterTheLastColonOfTheDescription() throws {
        let path = try write("filter.p2p", """
            # PeerGuardian text
            Some:Org:1.2.3.4-1.2.3.5
            Plain org:10.0.0.0 - 10.0.0.255
            """)
        let parsed = try IPFilterParser.parse(file: path)
        XCTAssertEqual(parsed.rules.v4, [r(0x0102_0304, 0x0102_0305), r(0x0A00_0000, 0x0A00_00FF)])
        XCTAssertEqual(parsed.rules.v6, [])
        XCTAssertEqual(parsed.skipped, 0)
    }

    func testP2PCountsLinesWithoutARangeAndReversedRanges() throws {
        let path = try write("bad.p2p", """
            no colon at all
            Org:not-an-address
            Org:1.2.3.9-1.2.3.1
            Org:1.2.3.1-1.2.3.9
            """)
        let parsed = try IPFilterParser.parse(file: path)
        XCTAssertEqual(parsed.rules.v4, [r(0x0102_0301, 0x0102_0309)])
        XCTAssertEqual(parsed.skipped, 3)
    }

    func testP2PReadsAnIPv6RangeAfterTheDescription() throws {
        let path = try write("v6.p2p", "Loopback:Org:::1-::ff\n")
        let parsed = try IPFilterParser.parse(file: path)
        XCTAssertEqual(parsed.rules.v4, [])
        XCTAssertEqual(parsed.rules.v6, [v6("::1", "::ff")])
        XCTAssertEqual(parsed.skipped, 0)
    }

    /// The range must not be cut at the first colon (from the right) that happens to leave a valid IPv6 address:
    /// `db8::1` parses, but the line's first address is `2001:db8::1`.
    func testP2PIPv6RangeWhoseFirstAddressHoldsColonsIsReadWhole() throws {
        let path = try write("doc.p2p", "Documentation net:2001:db8::1-2001:db8::ff\n")
        let parsed = try IPFilterParser.parse(file: path)
        XCTAssertEqual(parsed.rules.v6, [v6("2001:db8::1", "2001:db8::ff")])
        XCTAssertEqual(parsed.skipped, 0)
    }

    // MARK: .p2b

    func p2bHeader(_ version: UInt8) -> [UInt8] {
        let magic: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF]
        return magic + Array("P2B".utf8) + [version]
    }

    /// The parts one after the other.
    func bytes(_ parts: [UInt8]...) -> [UInt8] { parts.flatMap { $0 } }

    func be(_ value: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
         UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    func cString(_ text: String) -> [UInt8] { Array(text.utf8) + [0] }

    /// A v1/v2 record: NUL-terminated name, first, last.
    func p2bRecord(_ text: String, _ first: UInt32, _ last: UInt32) -> [UInt8] { bytes(cString(text), be(first), be(last)) }

    func testP2BVersion1ReadsNamedRecords() throws {
        let file = bytes(p2bHeader(1), p2bRecord("Org A", 0x0102_0304, 0x0102_0305), p2bRecord("", 0x0A00_0000, 0x0A00_00FF))
        let parsed = try IPFilterParser.parse(file: try write("v1.p2b", bytes: file))
        XCTAssertEqual(parsed.rules.v4, [r(0x0102_0304, 0x0102_0305), r(0x0A00_0000, 0x0A00_00FF)])
        XCTAssertEqual(parsed.skipped, 0)
    }

    func testP2BVersion2ReadsRecordsAndSkipsReversedOnes() throws {
        let file = bytes(p2bHeader(2), p2bRecord("Reversed", 0x0102_0309, 0x0102_0301), p2bRecord("Org B", 0xC000_0200, 0xC000_02FF))
        let parsed = try IPFilterParser.parse(file: try write("v2.p2b", bytes: file))
        XCTAssertEqual(parsed.rules.v4, [r(0xC000_0200, 0xC000_02FF)])
        XCTAssertEqual(parsed.skipped, 1)
    }

    func testP2BVersion3ReadsTheNameTableThenIndexedRanges() throws {
        let file = bytes(
            p2bHeader(3), be(2), cString("Org A"), cString("Org B"), be(3),
            be(0), be(0x0102_0304), be(0x0102_0305),
            be(1), be(0x0A00_0000), be(0x0AFF_FFFF),
            be(1), be(0x0B00_0009), be(0x0B00_0001))  // reversed
        let parsed = try IPFilterParser.parse(file: try write("v3.p2b", bytes: file))
        XCTAssertEqual(parsed.rules.v4, [r(0x0102_0304, 0x0102_0305), r(0x0A00_0000, 0x0AFF_FFFF)])
        XCTAssertEqual(parsed.skipped, 1)
    }

    func testP2BTruncatedRecordIsCorrupt() throws {
        let whole = bytes(p2bHeader(2), p2bRecord("Org", 0x0102_0304, 0x0102_0305))
        let path = try write("truncated.p2b", bytes: Array(whole.dropLast(2)))
        assertFails(path, .corrupt(path))
    }

    func testP2BVersion3CountingMoreRangesThanItHoldsIsCorrupt() throws {
        let file = bytes(p2bHeader(3), be(1), cString("Org"), be(5), be(0), be(0x0102_0304), be(0x0102_0305))
        let path = try write("short-v3.p2b", bytes: file)
        assertFails(path, .corrupt(path))
    }

    func testP2BWithABadMagicOrAnUnknownVersionIsCorrupt() throws {
        let wrongMagic: [UInt8] = [0xFF, 0xFF, 0xFF, 0x00]
        let badMagic = try write("magic.p2b", bytes: bytes(wrongMagic, Array("P2B".utf8), [1], p2bRecord("Org", 1, 2)))
        assertFails(badMagic, .corrupt(badMagic))
        let version4 = try write("v4.p2b", bytes: bytes(p2bHeader(4), p2bRecord("Org", 1, 2)))
        assertFails(version4, .corrupt(version4))
        let text = try write("text.p2b", "Org:1.2.3.4-1.2.3.5\n")
        assertFails(text, .corrupt(text))
    }

    func testP2BWithOnlyAHeaderHoldsNothingReadable() throws {
        let path = try write("empty.p2b", bytes: p2bHeader(1))
        assertFails(path, .nothingReadable(path, skipped: 0))
    }

    // MARK: failures

    func testFileWithOnlyBadLinesIsNothingReadable() throws {
        let path = try write("bad.dat", """
            # only a comment and two bad lines
            garbage
            1.2.3.9 - 1.2.3.1 , 0 , reversed
            """)
        assertFails(path, .nothingReadable(path, skipped: 2))
    }

    func testEmptyFileIsNothingReadable() throws {
        let path = try write("empty.p2p", "")
        assertFails(path, .nothingReadable(path, skipped: 0))
    }

    func testUnknownExtensionIsUnknownFormat() throws {
        let path = try write("filter.txt", "1.2.3.4 - 1.2.3.5 , 0 , a\n")
        assertFails(path, .unknownFormat(path))
        let bare = try write("filter", "1.2.3.4 - 1.2.3.5 , 0 , a\n")
        assertFails(bare, .unknownFormat(bare))
    }

    func testMissingFileIsUnreadable() {
        let path = dir.appendingPathComponent("missing.dat").path
        XCTAssertThrowsError(try IPFilterParser.parse(file: path)) { error in
            guard case .unreadable(let failed, _)? = error as? IPFilterParser.Failure else {
                return XCTFail("expected .unreadable, got \(error)")
            }
            XCTAssertEqual(failed, path)
        }
    }
}

// MARK: - Address text and rules

final class IPAddressParsingTests: XCTestCase {
    func testV4ReadsLeadingZerosAsDecimal() {
        XCTAssertEqual(IPv6.v4("001.009.096.105"), 0x0109_6069)
        XCTAssertEqual(IPv6.v4("010.000.000.001"), 0x0A00_0001)  // not octal 8
        XCTAssertEqual(IPv6.v4("008.009.0.0"), 0x0809_0000)  // octal would refuse 8 and 9
        XCTAssertEqual(IPv6.v4("0.0.0.0"), 0)
        XCTAssertEqual(IPv6.v4("255.255.255.255"), UInt32.max)
    }

    func testV4RefusesOutOfRangeAndMalformedText() {
        XCTAssertNil(IPv6.v4("256.0.0.1"))
        XCTAssertNil(IPv6.v4("1.2.3.256"))
        XCTAssertNil(IPv6.v4("1.2.3"))
        XCTAssertNil(IPv6.v4("1.2.3.4.5"))
        XCTAssertNil(IPv6.v4("1..3.4"))
        XCTAssertNil(IPv6.v4("1.2.3."))
        XCTAssertNil(IPv6.v4("+1.+2.+3.+4"))  // signs are not digits (UInt32("+1") would read 1)
        XCTAssertNil(IPv6.v4("0001.2.3.4"))
        XCTAssertNil(IPv6.v4(" 1.2.3.4"))
        XCTAssertNil(IPv6.v4("a.b.c.d"))
        XCTAssertNil(IPv6.v4("::1"))
        XCTAssertNil(IPv6.v4(""))
    }

    func testV6ParsesTextIntoHighAndLowHalves() {
        XCTAssertEqual(IPv6("::1"), IPv6(high: 0, low: 1))
        XCTAssertEqual(IPv6("::"), IPv6(high: 0, low: 0))
        XCTAssertEqual(IPv6("fe80::1"), IPv6(high: 0xFE80_0000_0000_0000, low: 1))
        XCTAssertEqual(IPv6("2001:db8::ff"), IPv6(high: 0x2001_0DB8_0000_0000, low: 0xFF))
        XCTAssertEqual(IPv6("::ffff:1.2.3.4"), IPv6(high: 0, low: 0x0000_FFFF_0102_0304))
    }

    func testV6RefusesIPv4ZoneIdsAndMalformedText() {
        XCTAssertNil(IPv6("1.2.3.4"))
        XCTAssertNil(IPv6("fe80::1%eth0"))
        XCTAssertNil(IPv6("1::2::3"))
        XCTAssertNil(IPv6(":"))
        XCTAssertNil(IPv6("::g"))
        XCTAssertNil(IPv6(""))
    }

    func testV6NetworkBytesAreBigEndian() {
        var expected: [UInt8] = [0x20, 0x01, 0x0D, 0xB8]
        expected += Array(repeating: 0, count: 11)
        expected.append(0xFF)
        XCTAssertEqual(IPv6("2001:db8::ff")?.networkBytes, expected)
    }

    func testV6OrdersByTheHighHalfFirst() throws {
        let one = try XCTUnwrap(IPv6("::1")), two = try XCTUnwrap(IPv6("::2"))
        XCTAssertLessThan(one, two)
        XCTAssertLessThan(try XCTUnwrap(IPv6("0:ffff::")), try XCTUnwrap(IPv6("1::")))
        XCTAssertLessThan(try XCTUnwrap(IPv6("::ffff:ffff:ffff:ffff")), try XCTUnwrap(IPv6("0:0:0:1::")))
        XCTAssertFalse(two < one)
        XCTAssertFalse(one < one)
    }

    func testBlockAddsOneAddressRangeOfItsFamily() {
        var rules = IPFilterRules()
        XCTAssertTrue(rules.block("10.0.0.1"))
        XCTAssertTrue(rules.block("::1"))
        XCTAssertFalse(rules.block("example.org"))
        XCTAssertFalse(rules.block("10.0.0.256"))
        XCTAssertFalse(rules.block("fe80::1%eth0"))
        XCTAssertEqual(rules.v4, [UInt32(0x0A00_0001)...UInt32(0x0A00_0001)])
        XCTAssertEqual(rules.v6, [IPv6(high: 0, low: 1)...IPv6(high: 0, low: 1)])
        XCTAssertEqual(rules.count, 2)
        XCTAssertFalse(rules.isEmpty)
    }

    func testRulesAddUp() {
        var a = IPFilterRules(), b = IPFilterRules()
        a.block("1.1.1.1")
        b.block("2.2.2.2")
        b.block("::2")
        let sum = a + b
        XCTAssertEqual(sum.v4, [UInt32(0x0101_0101)...UInt32(0x0101_0101), UInt32(0x0202_0202)...UInt32(0x0202_0202)])
        XCTAssertEqual(sum.count, 3)
        XCTAssertTrue(IPFilterRules().isEmpty)
    }
}

// MARK: - Interface binding

/// `NetworkBinding.make` against a fixed interface list, never the machine's.
final class NetworkBindingTests: XCTestCase {
    func bind(_ name: String, _ address: String, port: Int = 6881) -> NetworkBinding {
        NetworkBinding.make(interface: name, address: address, port: port, interfaces: [
            (name: "lo", address: "127.0.0.1"), (name: "lo", address: "::1"),
            (name: "eth0", address: "192.0.2.10"), (name: "eth0", address: "fe80::1%eth0"),
            (name: "tun0", address: nil),
        ])
    }

    func assertProblem(_ binding: NetworkBinding, _ text: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(binding.problem?.contains(text) ?? false, "problem: \(binding.problem ?? "nil")", file: file, line: line)
    }

    func testNoInterfaceAndNoAddressListensEverywhereAndConnectsFromAnywhere() {
        let b = bind("", "", port: 7000)
        XCTAssertEqual(b.listenInterfaces, "0.0.0.0:7000,[::]:7000")
        XCTAssertEqual(b.outgoingInterfaces, "")
        XCTAssertNil(b.problem)
    }

    func testInterfaceNameAloneBindsByName() {
        let b = bind("eth0", "")
        XCTAssertEqual(b.listenInterfaces, "eth0:6881")
        XCTAssertEqual(b.outgoingInterfaces, "eth0")
        XCTAssertNil(b.problem)
    }

    func testInterfaceWithoutAnAddressIsStillKnownByName() {
        let b = bind("tun0", "")
        XCTAssertEqual(b.listenInterfaces, "tun0:6881")
        XCTAssertEqual(b.outgoingInterfaces, "tun0")
        XCTAssertNil(b.problem)
    }

    func testUnknownInterfaceIsStillBoundByNameAndReported() {
        let b = bind("nosuch", "")
        XCTAssertEqual(b.listenInterfaces, "nosuch:6881")
        XCTAssertEqual(b.outgoingInterfaces, "nosuch")
        assertProblem(b, "The configured network interface is invalid")
        assertProblem(b, "nosuch")
    }

    func testInterfaceAndIPv4AddressBindToThatAddress() {
        let b = bind("lo", "127.0.0.1")
        XCTAssertEqual(b.listenInterfaces, "127.0.0.1:6881")
        XCTAssertEqual(b.outgoingInterfaces, "127.0.0.1")
        XCTAssertNil(b.problem)
    }

    func testInterfaceAndIPv6AddressListenInBrackets() {
        let b = bind("lo", "::1")
        XCTAssertEqual(b.listenInterfaces, "[::1]:6881")
        XCTAssertEqual(b.outgoingInterfaces, "::1")
        XCTAssertNil(b.problem)
    }

    func testAddressWithAZoneOnTheInterfaceIsMatchedWithoutIt() {
        let b = bind("eth0", "fe80::1")
        XCTAssertEqual(b.listenInterfaces, "[fe80::1]:6881")
        XCTAssertEqual(b.outgoingInterfaces, "fe80::1")
        XCTAssertNil(b.problem)
    }

    func testAnyAddressOnAnInterfaceTakesItsAddressesOfThatFamily() {
        let v4 = bind("eth0", "0.0.0.0")
        XCTAssertEqual(v4.listenInterfaces, "192.0.2.10:6881")
        XCTAssertEqual(v4.outgoingInterfaces, "192.0.2.10")
        let v6 = bind("eth0", "::")
        XCTAssertEqual(v6.listenInterfaces, "[fe80::1]:6881")
        XCTAssertEqual(v6.outgoingInterfaces, "fe80::1")
    }

    func testAddressAloneIsFoundOnAnyInterface() {
        let b = bind("", "192.0.2.10")
        XCTAssertEqual(b.listenInterfaces, "192.0.2.10:6881")
        XCTAssertEqual(b.outgoingInterfaces, "192.0.2.10")
        XCTAssertNil(b.problem)
    }

    func testAddressAloneMatchesDifferentlyWrittenText() {
        let b = bind("", "192.000.002.010")
        XCTAssertEqual(b.listenInterfaces, "192.0.2.10:6881")
        XCTAssertNil(b.problem)
    }

    func testAddressNotOnTheMachineIsStillUsedAndReported() {
        let b = bind("", "1.2.3.4")
        XCTAssertEqual(b.listenInterfaces, "1.2.3.4:6881")
        XCTAssertEqual(b.outgoingInterfaces, "1.2.3.4")
        assertProblem(b, "Failed to find the configured network address")
    }

    func testInvalidAddressTextIsReported() {
        let b = bind("", "not an address")
        assertProblem(b, "The configured network address is invalid")
        XCTAssertFalse(b.outgoingInterfaces.isEmpty)
        let onInterface = bind("eth0", "1.2.3.999")
        assertProblem(onInterface, "The configured network address is invalid")
    }

    func testAnyIPv4AddressWithoutAnInterfaceListensOnIPv4Only() {
        let b = bind("", "0.0.0.0")
        XCTAssertEqual(b.listenInterfaces, "0.0.0.0:6881")
        XCTAssertEqual(b.outgoingInterfaces, "")
        XCTAssertNil(b.problem)
        let v6 = bind("", "::")
        XCTAssertEqual(v6.listenInterfaces, "[::]:6881")
        XCTAssertEqual(v6.outgoingInterfaces, "")
        XCTAssertNil(v6.problem)
    }

    func testAddressNotOnTheNamedInterfaceBindsToTheInterfaceInstead() {
        for (name, address) in [("eth0", "127.0.0.1"), ("lo", "192.0.2.10"), ("tun0", "10.8.0.2")] {
            let b = bind(name, address)
            XCTAssertEqual(b.listenInterfaces, "\(name):6881", "\(name) \(address)")
            XCTAssertEqual(b.outgoingInterfaces, name, "\(name) \(address): an empty list would be the default route")
            assertProblem(b, "is not on the interface")
        }
        let noV4 = bind("tun0", "0.0.0.0")  // no address of that family on it
        XCTAssertEqual(noV4.outgoingInterfaces, "tun0")
    }
}

// MARK: - Proxy and privacy preferences

final class ProxySettingsTests: XCTestCase {
    var dir: URL!

    override func setUp() async throws { dir = try temporaryFolder("qbtd-proxy") }

    override func tearDown() async throws { try? FileManager.default.removeItem(at: dir) }

    func makeSettings() async throws -> ServerSettings {
        let paths = try ServerPaths(dataDirectory: dir.path)
        return try await ServerSettings(store: try SQLiteStore(path: paths.databasePath), paths: paths)
    }

    /// The engine settings once these preferences are stored.
    func engineSettings(after changes: [String: JSONValue]) async throws -> EngineSettings {
        let settings = try await makeSettings()
        try await settings.update(changes)
        return settings.engineSettings()
    }

    func pack(_ s: EngineSettings) -> [String: String] { Dictionary(s.pack, uniquingKeysWith: { first, _ in first }) }

    // MARK: translate4x

    func testTranslate4xMapsEveryProxyTypeNumber() {
        let expected: [(Int64, String, Bool?)] = [
            (-1, "None", nil), (0, "None", nil), (1, "HTTP", false), (2, "SOCKS5", false), (3, "HTTP", true),
            (4, "SOCKS5", true), (5, "SOCKS4", false), (6, "None", nil),
        ]
        for (n, name, auth) in expected {
            var changes: [String: JSONValue] = ["proxy_type": .int(n)]
            ServerSettings.translate4x(&changes)
            XCTAssertEqual(changes["proxy_type"], .string(name), "proxy_type \(n)")
            XCTAssertEqual(changes["proxy_auth_enabled"], auth.map(JSONValue.bool), "proxy_type \(n)")
        }
    }

    func testTranslate4xKeepsAnExplicitAuthFlag() {
        var changes: [String: JSONValue] = ["proxy_type": .int(3), "proxy_auth_enabled": .bool(false)]
        ServerSettings.translate4x(&changes)
        XCTAssertEqual(changes["proxy_type"], .string("HTTP"))
        XCTAssertEqual(changes["proxy_auth_enabled"], .bool(false))
    }

    func testTranslate4xLeaves5xNamesAlone() {
        var changes: [String: JSONValue] = ["proxy_type": .string("SOCKS5"), "proxy_rss": .bool(false)]
        ServerSettings.translate4x(&changes)
        XCTAssertEqual(changes, ["proxy_type": .string("SOCKS5"), "proxy_rss": .bool(false)])
    }

    func testTranslate4xTorrentsOnlyTurnsRSSAndMiscOff() {
        var only: [String: JSONValue] = ["proxy_torrents_only": .bool(true)]
        ServerSettings.translate4x(&only)
        XCTAssertEqual(only, ["proxy_bittorrent": .bool(true), "proxy_rss": .bool(false), "proxy_misc": .bool(false)])

        var all: [String: JSONValue] = ["proxy_torrents_only": .bool(false)]
        ServerSettings.translate4x(&all)
        XCTAssertEqual(all, ["proxy_bittorrent": .bool(true), "proxy_rss": .bool(true), "proxy_misc": .bool(true)])
    }

    func testTranslate4xTorrentsOnlyKeepsExplicit5xKeys() {
        var changes: [String: JSONValue] = [
            "proxy_torrents_only": .bool(true), "proxy_rss": .bool(true), "proxy_bittorrent": .bool(false),
        ]
        ServerSettings.translate4x(&changes)
        XCTAssertNil(changes["proxy_torrents_only"])
        XCTAssertEqual(changes["proxy_rss"], .bool(true))
        XCTAssertEqual(changes["proxy_bittorrent"], .bool(false))
        XCTAssertEqual(changes["proxy_misc"], .bool(false))
    }

    // MARK: engine settings

    func testDefaultsUseNoProxyAndNoBinding() async throws {
        let settings = try await makeSettings()
        let s = settings.engineSettings()
        XCTAssertEqual(s.proxy, EngineSettings.Proxy())
        XCTAssertEqual(s.listenInterfaces, "0.0.0.0:6881,[::]:6881")
        XCTAssertEqual(s.outgoingInterfaces, "")
        XCTAssertFalse(s.ipFilterTrackers)
        let p = pack(s)
        XCTAssertEqual(p["proxy_type"], "0")
        XCTAssertEqual(p["outgoing_interfaces"], "")
    }

    func testSOCKS5WithPasswordReachesTheEnginePack() async throws {
        let s = try await engineSettings(after: [
            "proxy_type": .string("SOCKS5"), "proxy_ip": .string("10.0.0.2"), "proxy_port": .int(1080),
            "proxy_auth_enabled": .bool(true), "proxy_username": .string("user"), "proxy_password": .string("secret"),
            "proxy_peer_connections": .bool(true), "proxy_hostname_lookup": .bool(false),
        ])
        XCTAssertEqual(s.proxy.kind, .socks5)
        XCTAssertEqual(s.proxy.host, "10.0.0.2")
        XCTAssertEqual(s.proxy.port, 1080)
        XCTAssertEqual(s.proxy.user, "user")
        XCTAssertEqual(s.proxy.password, "secret")
        XCTAssertTrue(s.proxy.peerConnections)
        XCTAssertFalse(s.proxy.hostnameLookup)
        let p = pack(s)
        XCTAssertEqual(p["proxy_type"], "3")  // socks5_pw
        XCTAssertEqual(p["proxy_hostname"], "10.0.0.2")
        XCTAssertEqual(p["proxy_port"], "1080")
        XCTAssertEqual(p["proxy_username"], "user")
        XCTAssertEqual(p["proxy_password"], "secret")
        XCTAssertEqual(p["proxy_peer_connections"], "true")
        XCTAssertEqual(p["proxy_hostnames"], "false")
    }

    func testSOCKS5WithoutAuthCarriesNoCredentials() async throws {
        let s = try await engineSettings(after: [
            "proxy_type": .string("SOCKS5"), "proxy_ip": .string("10.0.0.2"), "proxy_port": .int(1080),
            "proxy_auth_enabled": .bool(false), "proxy_username": .string("user"), "proxy_password": .string("secret"),
        ])
        XCTAssertEqual(s.proxy.kind, .socks5)
        XCTAssertNil(s.proxy.user)
        let p = pack(s)
        XCTAssertEqual(p["proxy_type"], "2")
        XCTAssertEqual(p["proxy_username"], "")
        XCTAssertEqual(p["proxy_password"], "")
    }

    func testFourXProxyTypeNumberWithPasswordReachesTheEngine() async throws {
        let settings = try await makeSettings()
        let changed = try await settings.update([
            "proxy_type": .int(3), "proxy_ip": .string("proxy.example"), "proxy_port": .int(3128),
            "proxy_username": .string("u"), "proxy_password": .string("p"),
        ])
        XCTAssertTrue(changed.isSuperset(of: ["proxy_type", "proxy_auth_enabled"]), "\(changed)")
        let type = settings[\.proxyType]
        XCTAssertEqual(type, "HTTP")
        let s = settings.engineSettings()
        XCTAssertEqual(s.proxy.kind, .http)
        XCTAssertEqual(s.proxy.host, "proxy.example")
        XCTAssertEqual(s.proxy.port, 3128)
        XCTAssertEqual(s.proxy.user, "u")
        XCTAssertEqual(pack(s)["proxy_type"], "5")  // http_pw
    }

    func testSOCKS4NeverCarriesAUser() async throws {
        let settings = try await makeSettings()
        try await settings.update([
            "proxy_type": .string("SOCKS4"), "proxy_ip": .string("10.0.0.4"), "proxy_port": .int(1081),
            "proxy_auth_enabled": .bool(true), "proxy_username": .string("u"), "proxy_password": .string("p"),
        ])
        let s = settings.engineSettings()
        XCTAssertEqual(s.proxy.kind, .socks4)
        XCTAssertNil(s.proxy.user)
        let p = pack(s)
        XCTAssertEqual(p["proxy_type"], "1")
        XCTAssertEqual(p["proxy_username"], "")
        XCTAssertEqual(p["proxy_password"], "")

        try await settings.update(["proxy_type": .int(5)])  // the 4.x number says SOCKS4 too
        let again = settings.engineSettings()
        XCTAssertEqual(again.proxy.kind, .socks4)
        XCTAssertNil(again.proxy.user)
    }

    func testProxyBittorrentOffLeavesTheSessionDirectButNotRSSOrMisc() async throws {
        let settings = try await makeSettings()
        try await settings.update([
            "proxy_type": .string("HTTP"), "proxy_ip": .string("10.0.0.3"), "proxy_port": .int(3128),
            "proxy_bittorrent": .bool(false),
        ])
        let s = settings.engineSettings()
        XCTAssertEqual(s.proxy, EngineSettings.Proxy())
        XCTAssertEqual(s.proxy.kind, EngineSettings.Proxy.Kind.none)
        XCTAssertEqual(pack(s)["proxy_type"], "0")
        let rss = await settings.proxy(for: .rss)
        let misc = await settings.proxy(for: .misc)
        XCTAssertEqual(rss.kind, .http)
        XCTAssertEqual(misc.kind, .http)
        XCTAssertEqual(misc.host, "10.0.0.3")
    }

    func testProxyTorrentsOnlyKeepsRSSAndMiscDirect() async throws {
        let settings = try await makeSettings()
        try await settings.update([
            "proxy_type": .int(2), "proxy_ip": .string("10.0.0.5"), "proxy_port": .int(1080),
            "proxy_torrents_only": .bool(true),
        ])
        let bittorrent = await settings.proxy(for: .bittorrent)
        let rss = await settings.proxy(for: .rss)
        let misc = await settings.proxy(for: .misc)
        XCTAssertEqual(bittorrent.kind, .socks5)
        XCTAssertNil(bittorrent.user)
        XCTAssertEqual(rss.kind, EngineSettings.Proxy.Kind.none)
        XCTAssertEqual(misc.kind, EngineSettings.Proxy.Kind.none)
        let s = settings.engineSettings()
        XCTAssertEqual(s.proxy, bittorrent)
    }

    func testProxyTypeNoneMeansNoProxyWhateverTheAddress() async throws {
        let settings = try await makeSettings()
        try await settings.update([
            "proxy_type": .string("HTTP"), "proxy_ip": .string("10.0.0.3"), "proxy_auth_enabled": .bool(true),
            "proxy_username": .string("u"),
        ])
        try await settings.update(["proxy_type": .int(0)])
        let s = settings.engineSettings()
        XCTAssertEqual(s.proxy, EngineSettings.Proxy())
        XCTAssertEqual(pack(s)["proxy_username"], "")
    }

    func testIPFilterTrackersCountsOnlyWithTheFilterOn() async throws {
        let settings = try await makeSettings()
        try await settings.update(["ip_filter_trackers": .bool(true)])
        let off = settings.engineSettings()
        XCTAssertFalse(off.ipFilterTrackers)
        XCTAssertEqual(pack(off)["apply_ip_filter_to_trackers"], "false")

        try await settings.update(["ip_filter_enabled": .bool(true)])
        let on = settings.engineSettings()
        XCTAssertTrue(on.ipFilterTrackers)
        XCTAssertEqual(pack(on)["apply_ip_filter_to_trackers"], "true")

        try await settings.update(["ip_filter_trackers": .bool(false)])
        let trackersOff = settings.engineSettings()
        XCTAssertFalse(trackersOff.ipFilterTrackers)
    }

    func testUnknownInterfaceBindsTheEngineByName() async throws {
        let settings = try await makeSettings()
        try await settings.update(["current_network_interface": .string("qbtdnosuch0"), "listen_port": .int(7001)])
        let s = settings.engineSettings()
        XCTAssertEqual(s.listenInterfaces, "qbtdnosuch0:7001")
        XCTAssertEqual(s.outgoingInterfaces, "qbtdnosuch0")
        XCTAssertEqual(pack(s)["outgoing_interfaces"], "qbtdnosuch0")
        let binding = settings.networkBinding(port: 7001)
        XCTAssertTrue(binding?.problem?.contains("The configured network interface is invalid") ?? false,
                      "\(String(describing: binding))")
    }

    func testAnyIPv4AddressNarrowsTheEngineToIPv4() async throws {
        let settings = try await makeSettings()
        try await settings.update(["current_interface_address": .string("0.0.0.0")])
        let s = settings.engineSettings()
        XCTAssertEqual(s.listenInterfaces, "0.0.0.0:6881")
        XCTAssertEqual(s.outgoingInterfaces, "")
    }
}
