import SystemKit
import XCTest
@testable import QBTCore
import EngineTestSupport
import Store

/// qBittorrent's command splitting and placeholders (Utils::String::splitCommand, Application::runExternalProgram).
final class ExternalProgramTests: XCTestCase {
    func testSplitKeepsQuotedSpacesAndNoShell() {
        XCTAssertEqual(ExternalProgram.split(#"/bin/echo  "a b" c"d e"f 'g h'"#), ["/bin/echo", #""a b""#, #"c"d e"f"#, "'g", "h'"])
        XCTAssertEqual(ExternalProgram.split("   "), [])
        XCTAssertEqual(ExternalProgram.split(#"x "unterminated quote"#), ["x", #""unterminated quote"#])
    }

    func testPlaceholdersPerArgument() {
        var v = ExternalProgram.Values()
        v.name = #"it's "quoted" & $(rm -rf)"#
        v.category = "tv"
        v.tags = ["a", "b"]
        v.contentPath = "/d/it's"
        v.savePath = "/d"
        v.fileCount = 2
        v.totalSize = 300
        v.infoHashV1 = "ab"
        v.id = "ab"
        let args = ExternalProgram.arguments(#"  /usr/bin/prog "%N" %L,%G "%F" %D %C %Z %I %J %K %R %T %X 100%%N %  "#, v)
        XCTAssertEqual(args, ["/usr/bin/prog", v.name, "tv,a,b", "/d/it's", "/d", "2", "300", "ab", "-", "ab", "", "", "%X",
                              "100%" + v.name, "%"])
    }
}

final class WatchedFolderTests: XCTestCase {
    func testScanDirsAreCheckedAndReportedAsQBittorrentReportsThem() throws {
        let paths = try ServerPaths(dataDirectory: FileManager.default.temporaryDirectory.path + "/qbtd-scan-\(UUID())")
        let (folders, rejected) = WatchedFolder.list(.object([
            "/w/own": .int(0), "/w/default": .string("1"), "/w/custom": .string("/srv/tv"), "relative": .int(0),
            "/w/bad": .bool(true), "/w/empty": .string(""),
        ]), paths: paths)
        XCTAssertEqual(folders, [
            WatchedFolder(folder: "/w/custom", target: .path("/srv/tv")),
            WatchedFolder(folder: "/w/default", target: .defaultSavePath),
            WatchedFolder(folder: "/w/own", target: .watchedFolder),
        ])
        XCTAssertEqual(rejected.count, 3)
        XCTAssertEqual(WatchedFolder.json(folders),
                       .object(["/w/custom": .string("/srv/tv"), "/w/default": .int(1), "/w/own": .int(0)]))
    }

    func testExportedNamesAreValidFileNames() {
        XCTAssertEqual(TorrentService.validFileName(#"a/b\\c:"d"?"#), "a b c d")
        XCTAssertEqual(TorrentService.validFileName("  .. "), "torrent")
        XCTAssertEqual(TorrentService.magnetURI(String(repeating: "ab", count: 20)), "magnet:?xt=urn:btih:" + String(repeating: "ab", count: 20))
        XCTAssertEqual(TorrentService.magnetURI("magnet:?xt=x"), "magnet:?xt=x")
    }
}

final class ExcludedFileNameTests: XCTestCase {
    func testWildcardsMatchTheNameOrAFolderOnThePathInAnyCase() {
        let patterns = TorrentService.exclusionPatterns("*.NFO\nsample\n[!a]x?.txt\n[broken")
        XCTAssertEqual(patterns.count, 3)
        XCTAssertTrue(TorrentService.isExcluded("Show/info.nfo", by: patterns))
        XCTAssertTrue(TorrentService.isExcluded("Show/Sample/clip.mkv", by: patterns))
        XCTAssertTrue(TorrentService.isExcluded("Show/bx1.txt", by: patterns))
        XCTAssertFalse(TorrentService.isExcluded("Show/ax1.txt", by: patterns))
        XCTAssertFalse(TorrentService.isExcluded("Show/samples/clip.mkv", by: patterns))
        XCTAssertFalse(TorrentService.isExcluded("Show/episode.mkv", by: patterns))
    }
}

final class ConfinedProgramTests: XCTestCase {
    /// Under --allowed-paths a client may not set external programs (they run anything): refused and reported off.
    func testProgramsAreRefusedWhilePathsAreConfined() async throws {
        let dir = try temporaryFolder("qbtd-confined-programs")
        defer { try? FileManager.default.removeItem(at: dir) }
        let paths = try ServerPaths(dataDirectory: dir.path, allowedPaths: [dir.path])
        let settings = try await ServerSettings(store: try SQLiteStore(path: paths.databasePath), paths: paths)
        let changes: [String: JSONValue] = ["autorun_enabled": .bool(true), "autorun_program": .string("/bin/sh -c x")]
        let refused = await settings.refusedChanges(changes).map(\.key)
        XCTAssertEqual(refused, ["autorun_enabled", "autorun_program"])
        let changed = try await settings.update(changes)
        XCTAssertTrue(changed.isEmpty)
        let enabled = settings[\.autorunEnabled]
        XCTAssertFalse(enabled)
    }
}
