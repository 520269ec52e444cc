import XCTest

@testable import QBTCore

final class ContentLayoutTests: XCTestCase {
    func testRootFolderIsTheTopFolderAllFilesShare() {
        XCTAssertEqual(ContentLayout.rootFolder(["fast/a.bin", "fast/dir/b.bin"]), "fast")
        XCTAssertEqual(ContentLayout.rootFolder(["fast/a.bin", "other/b.bin"]), "")
        XCTAssertEqual(ContentLayout.rootFolder(["a.bin", "fast/b.bin"]), "")
        XCTAssertEqual(ContentLayout.rootFolder(["slow/only.bin"]), "slow")
    }

    func testNoSubfolderStripsTheRootAndSubfolderAddsOne() {
        let files = ["fast/file0.bin", "fast/dir0/file2.bin"]
        XCTAssertEqual(ContentLayout.noSubfolder.paths(for: files, torrentName: "fast"), ["file0.bin", "dir0/file2.bin"])
        XCTAssertNil(ContentLayout.subfolder.paths(for: files, torrentName: "fast"))
        XCTAssertNil(ContentLayout.original.paths(for: files, torrentName: "fast"))
        XCTAssertEqual(ContentLayout.subfolder.paths(for: ["movie.mkv"], torrentName: "x"), ["movie/movie.mkv"])
        XCTAssertEqual(ContentLayout.subfolder.paths(for: ["a.bin", "b.bin"], torrentName: "pack"), ["pack/a.bin", "pack/b.bin"])
        XCTAssertNil(ContentLayout.noSubfolder.paths(for: ["movie.mkv"], torrentName: "x"))
    }
}
