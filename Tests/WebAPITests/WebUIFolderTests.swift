import Foundation
import XCTest
@testable import HTTPKit
@testable import WebUI

/// qBittorrent's rules for WebUI folders, on real files: public/private, `/` → index.html, bad paths, and an
/// alternative folder's refusals (not a regular file, symlinked folders, a symlink out of the folder).
final class WebUIFolderTests: XCTestCase {
    var root = ""

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "webui-\(UUID().uuidString)"
        let fm = FileManager.default
        for dir in ["public/js", "private/js", "public/sub"] {
            try fm.createDirectory(atPath: "\(root)/\(dir)", withIntermediateDirectories: true)
        }
        try "public index".write(toFile: "\(root)/public/index.html", atomically: true, encoding: .utf8)
        try "private index".write(toFile: "\(root)/private/index.html", atomically: true, encoding: .utf8)
        try "let a = 1".write(toFile: "\(root)/public/js/a.js", atomically: true, encoding: .utf8)
        try "outside".write(toFile: "\(root)-outside.html", atomically: true, encoding: .utf8)
        try fm.createSymbolicLink(atPath: "\(root)/public/escape.html", withDestinationPath: "\(root)-outside.html")
        try fm.createSymbolicLink(atPath: "\(root)/public/inside.html", withDestinationPath: "\(root)/public/index.html")
        try fm.createSymbolicLink(atPath: "\(root)/public/linked", withDestinationPath: "\(root)/public/js")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: root)
        try? FileManager.default.removeItem(atPath: root + "-outside.html")
    }

    func text(_ outcome: WebUIFolder.Outcome) -> String? {
        if case .file(let bytes, _) = outcome { return String(decoding: bytes, as: UTF8.self) }
        return nil
    }

    func testPublicWithoutSessionPrivateWithOne() {
        for alternative in [false, true] {
            let folder = WebUIFolder(root: root, alternative: alternative)
            XCTAssertEqual(text(folder.read("/", session: false)), "public index")
            XCTAssertEqual(text(folder.read("/", session: true)), "private index")
            // With a session a file only public/ has is still served.
            XCTAssertEqual(text(folder.read("/js/a.js", session: true)), "let a = 1")
            XCTAssertEqual(folder.read("/js/a.js", session: false), .file(bytes: Array("let a = 1".utf8), mediaType: "application/javascript"))
        }
    }

    func testBadPathsAreBadRequests() {
        let folder = WebUIFolder(root: root, alternative: false)
        for path in ["/a/../index.html", "/./index.html", "/js\\a.js", "/..", "/x\0y"] {
            XCTAssertEqual(folder.read(path, session: false), .badRequest, path)
        }
    }

    func testMissingFileIs404ForOwnUIAnd500ForAnAlternativeOne() {
        XCTAssertEqual(WebUIFolder(root: root, alternative: false).read("/nope.js", session: false), .notFound)
        XCTAssertEqual(WebUIFolder(root: root, alternative: true).read("/nope.js", session: false), .unusable(WebUIFolder.notRegular))
        XCTAssertEqual(WebUIFolder(root: root, alternative: true).read("/sub/", session: false), .unusable(WebUIFolder.notRegular))
    }

    func testAlternativeRefusesSymlinkedFoldersAndSymlinksOut() {
        let folder = WebUIFolder(root: root, alternative: true)
        XCTAssertEqual(folder.read("/linked/a.js", session: false), .unusable(WebUIFolder.symlinked))
        XCTAssertEqual(folder.read("/escape.html", session: false), .unusable(WebUIFolder.symlinked))
        XCTAssertEqual(text(folder.read("/inside.html", session: false)), "public index")
    }

    func testMediaTypesAndCaching() {
        XCTAssertEqual(MediaTypes.type(of: "/a/b.CSS"), "text/css")
        XCTAssertEqual(MediaTypes.type(of: "/x.png"), "image/png")
        XCTAssertEqual(MediaTypes.type(of: "/noext"), "application/octet-stream")
        XCTAssertEqual(MediaTypes.cacheControl(for: "image/svg+xml"), "private, max-age=604800")
        XCTAssertEqual(MediaTypes.cacheControl(for: "application/javascript"), "private, max-age=43200")
        XCTAssertEqual(MediaTypes.cacheControl(for: "text/html"), "no-store")
    }
}
