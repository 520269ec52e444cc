import Foundation
@testable import QBTCore
import Store
import SystemKit
import XCTest

/// The typed keys against the catalogue: code reads preferences only through `PreferenceKeys`, so these checks are
/// what stands between a misspelt key (or a key read as the wrong type) and a silent false, 0 or "".
final class PreferenceKeysTests: XCTestCase {
    static var typedKeys: [(name: String, key: any AnyPreference)] {
        Mirror(reflecting: PreferenceKeys.all).children.map { child in
            (child.label ?? "?", child.value as! any AnyPreference)
        }
    }

    func testEveryPropertyIsATypedKey() {
        let children = Mirror(reflecting: PreferenceKeys.all).children
        XCTAssertFalse(children.isEmpty)
        for child in children {
            XCTAssertTrue(child.value is any AnyPreference, "PreferenceKeys.\(child.label ?? "?") is not a Preference")
        }
    }

    func testEveryTypedKeyIsACatalogueKeyOfTheSameType() {
        for (name, key) in Self.typedKeys {
            guard let entry = PreferenceCatalogue.byKey[key.key] else {
                XCTFail("PreferenceKeys.\(name): \"\(key.key)\" is not in PreferenceCatalogue.entries")
                continue
            }
            XCTAssertEqual(key.valueType, entry.type, "PreferenceKeys.\(name) reads \(entry.key) as the wrong type")
            XCTAssertNil(entry.alias, "PreferenceKeys.\(name): \(entry.key) is a 4.x spelling, stored under \(entry.alias ?? "")")
        }
    }

    func testKeysAreDeclaredOnce() {
        let keys = Self.typedKeys.map(\.key.key)
        XCTAssertEqual(keys.count, Set(keys).count, "a key declared twice: \(Dictionary(grouping: keys) { $0 }.filter { $1.count > 1 }.keys)")
    }

    /// An applied key is read (or taken) by the code that applies it, so it must have a typed key.
    func testEveryAppliedKeyHasATypedKey() {
        let typed = Set(Self.typedKeys.map(\.key.key))
        for entry in PreferenceCatalogue.entries where entry.applier != nil && entry.alias == nil {
            XCTAssertTrue(typed.contains(entry.key), "\(entry.key) is applied by .\(entry.applier!) but has no typed key")
        }
    }

    /// Every typed key reads its catalogue default from fresh settings (no fallback to false, 0 or "").
    func testFreshSettingsReadTheDefaults() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let paths = try ServerPaths(dataDirectory: dir)
        let settings = try await ServerSettings(store: try SQLiteStore(path: paths.databasePath), paths: paths)
        XCTAssertEqual(settings[\.listenPort], 6881)
        XCTAssertEqual(settings[\.maxRatio], -1)
        XCTAssertEqual(settings[\.webUIDomainList], "*")
        XCTAssertEqual(settings[\.savePath], paths.downloadRoot)
        XCTAssertEqual(settings[\.scanDirs], [:])
        for entry in PreferenceCatalogue.entries where entry.stored && entry.alias == nil && !entry.profiles.isEmpty {
            XCTAssertEqual(settings.values[entry.key], entry.defaultValue.resolved(paths), entry.key)
        }
    }

    /// A node of a cluster keeps its transfer totals under its own name (two nodes writing one key overwrote each
    /// other's); shared state, such as the alternative speed mode, keeps one key; one qbtd keeps the plain names.
    func testPerNodeStateKeysAreStoredUnderTheNodesName() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let paths = try ServerPaths(dataDirectory: dir)
        let store = try SQLiteStore(path: paths.databasePath)
        let node = try await ServerSettings(store: store, paths: paths, node: "b")
        try await node.setState(.allTimeDownload, .int(42))
        try await node.setAlternativeSpeed(true)
        let stored = try await store.preference("qbtd_alltime_dl@b", as: Int.self)
        XCTAssertEqual(stored, 42)
        let shared = try await store.preference("qbtd_alltime_dl", as: Int.self)
        XCTAssertNil(shared)
        let alternative = try await store.preference("qbtd_alternative_speed_enabled", as: Bool.self)
        XCTAssertEqual(alternative, true)
        let again = try await ServerSettings(store: store, paths: paths, node: "b")
        let read = await again.state(.allTimeDownload)
        XCTAssertEqual(read, .int(42))
        let other = try await ServerSettings(store: store, paths: paths, node: "c")
        let others = await other.state(.allTimeDownload)
        XCTAssertNil(others)
        let single = try await ServerSettings(store: store, paths: paths)
        XCTAssertEqual(single.storedName(.allTimeDownload), "qbtd_alltime_dl")
        XCTAssertEqual(single.storedName(.musicDirectories), "qbtd_music_dirs")
        XCTAssertEqual(node.storedName(.musicDirectories), "qbtd_music_dirs@b")
    }

    func testChangeDictionariesTakeTypedKeys() {
        var changes: [String: JSONValue] = [:]
        changes[\.dlLimit] = 5
        changes[\.dht] = false
        changes[\.proxyType] = "SOCKS5"
        XCTAssertEqual(changes, ["dl_limit": .int(5), "dht": .bool(false), "proxy_type": .string("SOCKS5")])
        XCTAssertEqual(changes[\.dlLimit], 5)
        changes[\.dht] = nil
        XCTAssertNil(changes["dht"])
        XCTAssertEqual(PreferenceKeys.names(\.dht, \.listenPort), ["dht", "listen_port"])
    }
}
