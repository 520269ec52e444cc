import Foundation
@testable import QBTCore
import Store
import Synchronization
import SystemKit
import XCTest

/// The handlers components register for what they apply: run by `ServerSettings.update` before it returns, in the
/// appliers' order, the `beforeChange` ones before anything is stored.
final class PreferenceHandlersTests: XCTestCase {
    var directories: [String] = []

    override func tearDown() {
        for dir in directories { try? FileManager.default.removeItem(atPath: dir) }
    }

    func makeSettings(_ paths: ServerPaths? = nil) async throws -> ServerSettings {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
        directories.append(dir)
        let paths = try paths ?? ServerPaths(dataDirectory: dir)
        return try await ServerSettings(store: try SQLiteStore(path: paths.databasePath), paths: paths)
    }

    /// What the handlers did, in order.
    final class Trace: Sendable {
        let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    func testHandlersRunInTheAppliersOrderAndAreDoneWhenUpdateReturns() async throws {
        let settings = try await makeSettings()
        let trace = Trace()
        // Registered out of order; each takes a while, so an update that did not wait would return first.
        for applier in [PreferenceEntry.Applier.rss, .paths, .webSecurity, .engine, .automation] {
            settings.onChange(applier) { change in
                try await Task.sleep(for: .milliseconds(20))
                trace.add("\(applier) \(change.changedKeys.sorted().joined(separator: ","))")
            }
        }
        settings.beforeChange(.webServer) { _ in trace.add("before webServer") }
        settings.beforeChange(.credentials) { _ in trace.add("before credentials") }
        let changed = try await settings.update([
            "rss_refresh_interval": .int(7), "dl_limit": .int(5), "temp_path_enabled": .bool(true),
            "web_ui_session_timeout": .int(60), "use_https": .bool(false), "web_ui_username": .string("admin"),
        ])
        XCTAssertEqual(changed, ["rss_refresh_interval", "dl_limit", "temp_path_enabled", "web_ui_session_timeout"])
        XCTAssertEqual(trace.all, [
            "before credentials", "before webServer",
            "engine dl_limit,rss_refresh_interval,temp_path_enabled,web_ui_session_timeout",
            "paths dl_limit,rss_refresh_interval,temp_path_enabled,web_ui_session_timeout",
            "webSecurity dl_limit,rss_refresh_interval,temp_path_enabled,web_ui_session_timeout",
            "rss dl_limit,rss_refresh_interval,temp_path_enabled,web_ui_session_timeout",
        ], "automation's keys did not change, so it did not run")
    }

    func testHandlersSeeTheStoredValues() async throws {
        let settings = try await makeSettings()
        let seen = Trace()
        settings.onChange(.engine) { _ in seen.add("\(settings[\.dlLimit]) \(settings.engineSettings().downloadRateLimit)") }
        try await settings.update(["dl_limit": .int(4096)])
        XCTAssertEqual(seen.all, ["4096 4096"])
    }

    /// The WebUI sends its whole form on every save: the same save path again is no change (qBittorrent's
    /// `setSavePath` returns early), so the paths handler does not run and automatic torrents stay as they are.
    func testTheSameSavePathAgainIsNoChange() async throws {
        let settings = try await makeSettings()
        let seen = Trace()
        settings.onChange(.paths) { _ in seen.add(settings[\.savePath]) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
        directories.append(folder)
        let first = try await settings.update(["save_path": .string(folder)])
        XCTAssertEqual(first, ["save_path"])
        let again = try await settings.update(["save_path": .string(folder), "temp_path": .string(settings[\.tempPath])])
        XCTAssertEqual(again, [])
        XCTAssertEqual(seen.all.count, 1, "\(seen.all)")
    }

    func testBeforeHandlersTakeOrLeaveOutKeys() async throws {
        let settings = try await makeSettings()
        let taken = Trace()
        settings.beforeChange(.credentials) { request in
            if case .string(let name)? = request.take(\.webUIUsername) { taken.add(name) }
        }
        settings.beforeChange(.webServer) { request in
            XCTAssertTrue(request.asks(\.useHTTPS))
            XCTAssertEqual(request.proposed(\.useHTTPS), true, "1 is a boolean, as update takes it")
            XCTAssertEqual(request.proposed(\.webUIHTTPSKeyPath), "", "not asked: the current value")
            request.leaveOut(\.useHTTPS, \.webUIHTTPSCertPath)
        }
        let after = Trace()
        settings.onChange(.webServer) { change in after.add(change.changedKeys.sorted().joined(separator: ",")) }
        let changed = try await settings.update([
            "web_ui_username": .string("bob"), "use_https": .int(1), "web_ui_https_cert_path": .string("/c.pem"),
            "dl_limit": .int(1),
        ])
        XCTAssertEqual(changed, ["dl_limit"])
        XCTAssertEqual(taken.all, ["bob"])
        XCTAssertEqual(settings[\.webUIUsername], "admin", "taken by its component, not stored here")
        XCTAssertFalse(settings[\.useHTTPS])
        XCTAssertEqual(after.all, [], "left out: no change to apply")
    }

    func testAnAskedHandlerRunsWithoutAChangeAndAChangedOneDoesNot() async throws {
        let settings = try await makeSettings()
        let trace = Trace()
        settings.onChange(.webSecurity, when: .asked) { change in
            trace.add("asked \(change.asked(\.webUICustomHTTPHeaders)) changed \(change.changed(\.webUICustomHTTPHeaders))")
        }
        settings.onChange(.webSecurity) { _ in trace.add("changed") }
        let changed = try await settings.update(["web_ui_custom_http_headers": .string("")])  // the default again
        XCTAssertEqual(changed, [])
        XCTAssertEqual(trace.all, ["asked true changed false"])
    }

    func testAHandlerThatThrowsStopsTheChangeThere() async throws {
        struct Refused: Error {}
        let settings = try await makeSettings()
        let trace = Trace()
        settings.onChange(.engine) { _ in throw Refused() }
        settings.onChange(.rss) { _ in trace.add("rss") }
        do {
            try await settings.update(["dl_limit": .int(1), "rss_refresh_interval": .int(9)])
            XCTFail("the handler's error is the caller's")
        } catch is Refused {}
        XCTAssertEqual(trace.all, [])
        XCTAssertEqual(settings[\.dlLimit], 1, "stored before the handlers ran, as before them")
    }

    func testACancelledHandlerNoLongerRuns() async throws {
        let settings = try await makeSettings()
        let trace = Trace()
        let subscription = settings.onChange(.engine) { _ in trace.add("engine") }
        try await settings.update(["dl_limit": .int(1)])
        subscription.cancel()
        try await settings.update(["dl_limit": .int(2)])
        XCTAssertEqual(trace.all, ["engine"])
    }

    func testFourXSpellingsAreTranslatedFirst() async throws {
        let settings = try await makeSettings()
        let trace = Trace()
        settings.beforeChange(.torrentDefaults) { request in trace.add("\(request.changes.keys.sorted())") }
        let changed = try await settings.update(["start_paused_enabled": .bool(true), "proxy_type": .int(4)])
        XCTAssertEqual(changed, ["add_stopped_enabled", "proxy_type", "proxy_auth_enabled"])
        XCTAssertEqual(trace.all, [#"["add_stopped_enabled", "proxy_auth_enabled", "proxy_type"]"#])
        XCTAssertTrue(settings[\.addStoppedEnabled])
        XCTAssertEqual(settings[\.proxyType], "SOCKS5")
        // The 5.x key wins when both are sent.
        try await settings.update(["start_paused_enabled": .bool(true), "add_stopped_enabled": .bool(false)])
        XCTAssertFalse(settings[\.addStoppedEnabled])
    }

    /// `TorrentService.engineKeys` decides when libtorrent's settings are applied again: no other key may change them.
    func testEngineKeysAreEveryKeyTheEngineSettingsRead() async throws {
        let settings = try await makeSettings()
        try await settings.setAlternativeSpeed(true)
        let dir = URL(fileURLWithPath: directories[0])
        for entry in PreferenceCatalogue.entries where entry.acceptsChanges && !TorrentService.engineKeys.contains(entry.key) {
            let before = settings.engineSettings()
            try await settings.update([entry.key: PreferenceCatalogueTests.changedValue(entry, in: dir)])
            XCTAssertEqual(settings.engineSettings(), before, "\(entry.key) changes the engine's settings: add it to TorrentService.engineKeys")
        }
        for key in TorrentService.engineKeys { XCTAssertNotNil(PreferenceCatalogue.byKey[key], key) }
    }
}
