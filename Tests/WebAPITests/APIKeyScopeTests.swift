import Foundation
import QBTCore
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

import ServerTestSupport

/// Scoped API keys over real HTTP: each scope against the server's whole route table.
final class APIKeyScopeTests: XCTestCase {
    func testKeyStrengthAcceptsRandomKeysAndRefusesGuessableOnes() {
        for good in ["qbt_" + String(repeating: "aB3dE5fG7h", count: 3).prefix(28),
                     "3f8a9c0d1e2b4a6c8d0e1f2a3b4c5d6e",          // 32 hex digits: 128 bits
                     "q8Zx-3kP_vN2mR7tY1wL0s",                   // 22 base64url characters: 132 bits
                     "Xk9#pQ2!vL7@mN4$wR8%",                     // 20 printable: 131 bits
                     "dGhpcyBpcyBhIGxvbmcgcmFuZG9tIGtleQ=="] {
            XCTAssertNil(KeyStrength.problem(String(good)), good)
        }
        for bad in ["", "3f8a9c0d1e2b4a6c8d0e1f2a3b4c5d6",            // 31 hex digits: 124 bits
                    String(repeating: "a", count: 64), "abababababababababababababababab", // few distinct characters
                    "password123", "qbt_0123456789abcdef",              // the old minimum: 120 bits
                    "with a space in it, long enough to pass the size", "tab\there-0123456789abcdefghijk",
                    "ключ-0123456789abcdefghijklmnop", String(repeating: "aB3dE5fG7h", count: 26)] {
            XCTAssertNotNil(KeyStrength.problem(bad), bad)
        }
    }

    func testScopesReachWhatTheySay() {
        let read = APIKeyScope.Area.api(group: "torrents", action: "info", readOnly: true)
        let write = APIKeyScope.Area.api(group: "torrents", action: "delete", readOnly: false)
        let prepare = APIKeyScope.Area.api(group: "stream", action: "prepare", readOnly: false)
        let keyList = APIKeyScope.Area.api(group: "qbtd", action: "apiKeys", readOnly: true)
        let table: [(APIKeyScope, [APIKeyScope.Area], [APIKeyScope.Area])] = [
            (.full, [read, write, prepare, keyList, .music, .uploads], []),
            (.readOnly, [read, .music], [write, prepare, keyList, .uploads]),
            (.music, [.music], [read, write, prepare, keyList, .uploads]),
            (.stream, [read, prepare, .music], [write, keyList, .uploads]),
            (.upload, [.uploads], [read, write, prepare, keyList, .music]),
        ]
        for (scope, allowed, refused) in table {
            for area in allowed { XCTAssertTrue(scope.permits(area), "\(scope) \(area)") }
            for area in refused { XCTAssertFalse(scope.permits(area), "\(scope) \(area)") }
        }
    }

    /// Every route of the table, called with a key of each scope: refused (403, the scope named) exactly where the
    /// scope does not reach; a refused route never runs, so walking the mutating ones changes nothing.
    func testEveryScopeAgainstTheWholeRouteTable() async throws {
        try await withLoopbackServer(password: "pw") { port, parts in
            let base = "http://127.0.0.1:\(port)"
            XCTAssertGreaterThan(parts.routes.count, 120)
            var keys: [APIKeyScope: String] = [:]
            for scope in APIKeyScope.allCases {
                keys[scope] = try await parts.keys.create(name: scope.rawValue, scope: scope).key
            }
            var refusedReadOnly = 0
            for route in parts.routes where route.group != "auth" {
                let path = "/api/v2/\(route.group)/\(route.action)"
                let keyManagement = ["qbtd/apiKeys", "qbtd/createAPIKey", "qbtd/revokeAPIKey", "app/rotateAPIKey",
                                     "app/deleteAPIKey"].contains(route.group + "/" + route.action)
                for scope in [APIKeyScope.readOnly, .music, .stream, .upload] {
                    let expectRefused: Bool = switch scope {
                    case .readOnly: !route.readOnly || keyManagement
                    case .stream: !(route.group == "stream" || (route.readOnly && !keyManagement))
                    default: true
                    }
                    // Only refusals are walked for the mutating routes: a permitted one would act.
                    guard expectRefused || route.readOnly else { continue }
                    let (status, body) = try await call(base + path, post: !route.readOnly, key: keys[scope]!)
                    let outOfScope = status == 403 && body.contains("scope is \(scope.rawValue)")
                    XCTAssertEqual(outOfScope, expectRefused, "\(scope.rawValue) \(path): \(status) \(body)")
                    if scope == .readOnly && expectRefused { refusedReadOnly += 1 }
                }
            }
            XCTAssertGreaterThan(refusedReadOnly, 70, "the read-only key was refused on every route that changes something")

            // Outside /api/v2: uploads and the music library.
            var (status, body) = try await call(base + "/api/v2/uploads", post: false, key: keys[.upload]!)
            XCTAssertEqual(status, 200, body)
            (status, body) = try await call(base + "/api/v2/uploads", post: false, key: keys[.readOnly]!)
            XCTAssertEqual(status, 403, body)
            XCTAssertTrue(body.contains("\"error\"") && body.contains("read-only"), body)
            for scope in [APIKeyScope.full, .readOnly, .music, .stream] {
                (status, body) = try await call(base + "/music/auth", post: false, key: keys[scope]!)
                XCTAssertNotEqual(status, 401, "\(scope) \(body)")
                XCTAssertNotEqual(status, 403, "\(scope) \(body)")
            }
            (status, body) = try await call(base + "/music/auth", post: false, key: keys[.upload]!)
            XCTAssertEqual(status, 403, body)
            // A full key reaches a write: a tag made and seen.
            (status, body) = try await call(base + "/api/v2/torrents/createTags", post: true, key: keys[.full]!, form: "tags=scoped")
            XCTAssertEqual(status, 200, body)
            (status, body) = try await call(base + "/api/v2/torrents/tags", post: false, key: keys[.readOnly]!)
            XCTAssertEqual(body, "[\"scoped\"]")
        }
    }

    /// A key the user chose (a music client's existing one) works with its scope; a weak or repeated one is refused.
    func testChosenKeysAndTheirScopes() async throws {
        try await withLoopbackServer(password: "pw") { port, parts in
            let base = "http://127.0.0.1:\(port)/api/v2/"
            let full = try await parts.keys.create(name: "admin").key
            let chosen = "5f0c2a9e7b3d4c1a8e6f0b2d9c7a5e3f"
            var (status, body) = try await call(base + "qbtd/createAPIKey", post: true, key: full,
                                                form: "name=player&scope=music&key=\(chosen)")
            XCTAssertEqual(status, 200, body)
            XCTAssertTrue(body.contains("\"scope\":\"music\"") && body.contains(chosen), body)
            (status, body) = try await call(base + "qbtd/createAPIKey", post: true, key: full, form: "name=again&key=\(chosen)")
            XCTAssertEqual(status, 409, body)
            (status, body) = try await call(base + "qbtd/createAPIKey", post: true, key: full, form: "name=weak&key=hunter2hunter2")
            XCTAssertEqual(status, 400, body)
            XCTAssertTrue(body.contains("128 random bits"), body)
            (status, body) = try await call(base + "qbtd/createAPIKey", post: true, key: full, form: "name=x&scope=admin")
            XCTAssertEqual(status, 400, body)
            XCTAssertTrue(body.contains("full, read-only, music, stream, upload"), body)
            (status, body) = try await call(base + "qbtd/apiKeys", post: false, key: full)
            XCTAssertTrue(body.contains("\"name\":\"player\",\"scope\":\"music\""), body)
            (status, _) = try await call(base + "torrents/info", post: false, key: chosen)
            XCTAssertEqual(status, 403)
            (status, _) = try await call("http://127.0.0.1:\(port)/music/auth", post: false, key: chosen)
            XCTAssertNotEqual(status, 401)
            XCTAssertNotEqual(status, 403)
        }
    }

    func call(_ url: String, post: Bool, key: String, form: String = "") async throws -> (Int, String) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpShouldHandleCookies = false
        request.timeoutInterval = 30
        request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        if post {
            request.httpMethod = "POST"
            request.httpBody = Data(form.utf8)
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        }
        return try await withCheckedThrowingContinuation { continuation in
            URLSession.shared.dataTask(with: request) { data, response, error in
                if let error { return continuation.resume(throwing: error) }
                let http = response as! HTTPURLResponse
                continuation.resume(returning: (http.statusCode, String(decoding: data ?? Data(), as: UTF8.self)))
            }.resume()
        }
    }
}
