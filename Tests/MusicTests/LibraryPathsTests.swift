@testable import Music
import XCTest

/// The downloaded library database names files relative to the music folders.
final class LibraryPathsTests: XCTestCase {
    func testOneFolderGivesPathsInsideIt() {
        let labels = LibraryPaths.labels(["/srv/music"])
        XCTAssertEqual(LibraryPaths.relative("/srv/music/A/01.mp3", folders: ["/srv/music"], labels: labels), "A/01.mp3")
        XCTAssertEqual(LibraryPaths.relative("/srv/musicx/01.mp3", folders: ["/srv/music/"], labels: labels), nil)
    }

    func testSeveralFoldersArePrefixedByUniqueNames() {
        let folders = ["/a/Music", "/b/Music", "/c/Podcasts"]
        let labels = LibraryPaths.labels(folders)
        XCTAssertEqual(labels, ["Music", "Music (2)", "Podcasts"])
        XCTAssertEqual(LibraryPaths.relative("/b/Music/x.mp3", folders: folders, labels: labels), "Music (2)/x.mp3")
    }
}
