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
            (status, body, _) = try await call(base + "auth/login", form: "username=admin&password=nope")
            XCTAssertEqual(status, 200)
            XCTAssertEqual(body, "Fails.")
            let cookie: String?
            (status, body, cookie) = try await call(base + "auth/login", form: "username=admin&password=pw")
            XCTAssertEqual(body, "Ok.")
            let sid = try XCTUnwrap(cookie?.split(separator: ";").first.map(String.init))
            XCTAssertTrue(sid.hasPrefix("SID="))
            (status, body, _) = try await call(base + "app/version", cookie: sid)
            XCTAssertEqual(body, "v5.1.4")
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
            URLSession.shared.dataTask(with: request) { data, response, error in
                if let error { return continuation.resume(throwing: error) }
                let http = response as! HTTPURLResponse
                continuation.resume(returning: (http.statusCode, String(decoding: data ?? Data(), as: UTF8.self),
                                                http.value(forHTTPHeaderField: "Set-Cookie")))
            }.resume()
        }
    }
}
