import Foundation
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

import ServerTestSupport

/// The same `buildApplication` that `qbtd` runs, served on a real socket and spoken to over HTTP.
final class ServerTests: XCTestCase {
    func testLoginGatesTheAPIAndAnswersInQBittorrentsWords() async throws {
        try await withLoopbackServer(password: "pw") { port in
            let base = "http://127.0.0.1:\(port)/api/v2/"

            var (status, body, _) = try await call(base + "app/version")
            XCTAssertEqual(status, 403)
            XCTAssertEqual(body, "Forbidden")
            // The default profile, 5.3: 401 and 204 for logins, the cookie named after the port.
            (status, body, _) = try await call(base + "auth/login", form: "username=admin&password=nope")
            XCTAssertEqual(status, 401)
            XCTAssertEqual(body, "Unauthorized")
            let cookie: String?
            (status, body, cookie) = try await call(base + "auth/login", form: "username=admin&password=pw")
            XCTAssertEqual(status, 204)
            XCTAssertEqual(body, "")
            let sid = try XCTUnwrap(cookie?.split(separator: ";").first.map(String.init))
            XCTAssertTrue(sid.hasPrefix("QBT_SID_\(port)="))
            (status, body, _) = try await call(base + "app/version", cookie: sid)
            XCTAssertEqual(body, "v5.3.0")
            (status, body, _) = try await call(base + "torrents/info", cookie: sid)
            XCTAssertEqual(status, 200)
            XCTAssertEqual(body, "[]")
            (status, _, _) = try await call(base + "torrents/delete", cookie: sid)
            XCTAssertEqual(status, 405)
        }
    }

    func call(_ url: String, form: String? = nil, cookie: String? = nil) async throws -> (Int, String, String?) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpShouldHandleCookies = false
        if let form {
            request.httpMethod = "POST"
            request.httpBody = Data(form.utf8)
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        }
        if let cookie { request.setValue(cookie, forHTTPHeaderField: "Cookie") }
        return try await withCheckedThrowingContinuation { continuation in
            // A session of its own, with no cookie store: the shared one may hold a cookie another test's server (on
            // the same port, named after it) set, and send it beside this one.
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpCookieStorage = nil
            configuration.httpShouldSetCookies = false
            URLSession(configuration: configuration).dataTask(with: request) { data, response, error in
                if let error { return continuation.resume(throwing: error) }
                let http = response as! HTTPURLResponse
                continuation.resume(returning: (http.statusCode, String(decoding: data ?? Data(), as: UTF8.self),
                                                http.value(forHTTPHeaderField: "Set-Cookie")))
            }.resume()
        }
    }
}
