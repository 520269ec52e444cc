import QBTCore
import SystemKit
import XCTest
@testable import HTTPKit
@testable import WebAPI

/// The catalogue's `.webSecurity` keys reach `WebSecurityPolicy`, and the policy reaches the cookie and the headers.
final class WebSecurityPolicyTests: XCTestCase {
    var defaults: [String: JSONValue] {
        PreferenceCatalogue.defaults(paths: try! ServerPaths(dataDirectory: FileManager.default.temporaryDirectory.path))
    }

    func testEveryWebSecurityKeyChangesThePolicy() {
        let base = WebSecurityPolicy(defaults)
        let enabling: [String: [String: JSONValue]] = [
            "bypass_auth_subnet_whitelist": ["bypass_auth_subnet_whitelist_enabled": .bool(true)],
            "bypass_auth_subnet_whitelist_enabled": ["bypass_auth_subnet_whitelist": .string("10.0.0.0/8")],
            "web_ui_reverse_proxy_enabled": ["web_ui_reverse_proxies_list": .string("10.0.0.1")],
            "web_ui_custom_http_headers": ["web_ui_use_custom_http_headers_enabled": .bool(true)],
            "web_ui_use_custom_http_headers_enabled": ["web_ui_custom_http_headers": .string("X-A: 1")],
            "web_ui_hsts_max_age": ["web_ui_hsts_enabled": .bool(true)],
            "web_ui_hsts_include_subdomains": ["web_ui_hsts_enabled": .bool(true)],
        ]
        let changed: [String: JSONValue] = [
            "web_ui_domain_list": .string("example.org"), "bypass_auth_subnet_whitelist": .string("10.0.0.0/8"),
            "web_ui_reverse_proxies_list": .string("10.0.0.1"), "web_ui_custom_http_headers": .string("X-A: 1"),
        ]
        for entry in PreferenceCatalogue.entries where entry.applier == .webSecurity {
            var values = defaults
            let prerequisites = enabling[entry.key] ?? [:]
            values.merge(prerequisites) { $1 }
            let before = WebSecurityPolicy(values)
            values[entry.key] = changed[entry.key] ?? {
                switch values[entry.key]! {
                case .bool(let b): .bool(!b)
                case .int(let i): .int(i + 1)
                default: .string("x")
                }
            }()
            XCTAssertNotEqual(before, WebSecurityPolicy(values), "\(entry.key) is marked applied but changes no policy")
        }
        XCTAssertEqual(base, WebSecurityPolicy(defaults))
    }

    func testAlternativeWebUIFollowsBothKeysAndTheFlagWins() {
        var values = defaults
        XCTAssertNil(WebSecurityPolicy(values).alternativeWebUI)
        values["alternative_webui_path"] = .string("/srv/vuetorrent")
        XCTAssertNil(WebSecurityPolicy(values).alternativeWebUI, "a path alone does not turn it on")
        values["alternative_webui_enabled"] = .bool(true)
        XCTAssertEqual(WebSecurityPolicy(values).alternativeWebUI, "/srv/vuetorrent")
        values["alternative_webui_path"] = .string("")
        XCTAssertNil(WebSecurityPolicy(values).alternativeWebUI, "on without a folder serves qbtd's own interface")
        XCTAssertEqual(WebGate(WebSecurityPolicy(values), webUIDirectory: "/opt/ui").alternativeWebUI, "/opt/ui")
    }

    func testCustomHeaderLines() {
        let parsed = WebSecurityPolicy.headerLines("  X-One: 1\nbroken line\nX-Two:  two words \n\nBad Name: x\nX-Empty:")
        XCTAssertEqual(parsed.headers.map(\.name), ["X-One", "X-Two", "X-Empty"])
        XCTAssertEqual(parsed.headers.map(\.value), ["1", "two words", ""])
        XCTAssertEqual(parsed.skipped, ["broken line", "Bad Name: x"])
    }

    func testHSTSValue() {
        var values = defaults
        values["web_ui_hsts_enabled"] = .bool(true)
        XCTAssertEqual(WebSecurityPolicy(values).hsts, "max-age=31536000")
        values["web_ui_hsts_include_subdomains"] = .bool(true)
        values["web_ui_hsts_max_age"] = .int(60)
        XCTAssertEqual(WebSecurityPolicy(values).hsts, "max-age=60; includeSubDomains")
        XCTAssertNil(WebSecurityPolicy(defaults).hsts)
    }

    func testCookieIsSecureOnlyWhenAskedAndTrustworthy() {
        let v51 = Identity(profile: .v5_1), v52 = Identity(profile: .v5_2)
        XCTAssertEqual(SessionCookie.make(name: "SID", value: "a", identity: v51, csrf: true), "SID=a; HttpOnly; SameSite=Strict; path=/")
        XCTAssertEqual(SessionCookie.make(name: "SID", value: "a", identity: v51, csrf: true, secure: true),
                       "SID=a; secure; HttpOnly; SameSite=Strict; path=/")
        XCTAssertEqual(SessionCookie.make(name: "SID", value: "a", identity: v51, csrf: false, secure: true),
                       "SID=a; secure; HttpOnly; SameSite=None; path=/")
        XCTAssertEqual(SessionCookie.make(name: "SID", value: "a", identity: v51, csrf: false), "SID=a; HttpOnly; path=/")
        // 5.2+: QNetworkCookie's order (expires before path) and date ("Sun, 06-Dec-2026 01:42:13 GMT", as 5.3.0 sends).
        let modern = SessionCookie.make(name: "QBT_SID_1", value: "a", identity: v52, csrf: true, secure: true)
        XCTAssertTrue(modern.hasPrefix("QBT_SID_1=a; secure; HttpOnly; SameSite=Lax; expires="), modern)
        XCTAssertTrue(modern.hasSuffix(" GMT; path=/"), modern)
        XCTAssertNotNil(modern.range(of: #"expires=[A-Z][a-z]{2}, \d{2}-[A-Z][a-z]{2}-\d{4} \d{2}:\d{2}:\d{2} GMT"#,
                                     options: .regularExpression), modern)
        XCTAssertTrue(SessionCookie.expired(name: "SID").hasPrefix("SID=; expires="))

        let gate = WebGate(WebSecurityPolicy())
        XCTAssertFalse(gate.isOriginTrustworthy(forwardedProto: "https", socketIP: "10.0.0.1"))  // no reverse proxy set
        var policy = WebSecurityPolicy()
        policy.reverseProxy = true
        policy.trustedProxies = [Subnet("10.0.0.1")!]
        gate.update(policy)
        XCTAssertTrue(gate.isOriginTrustworthy(forwardedProto: "HTTPS", socketIP: "10.0.0.1"))
        XCTAssertFalse(gate.isOriginTrustworthy(forwardedProto: "https", socketIP: "10.0.0.2"))  // not a trusted proxy
        XCTAssertFalse(gate.isOriginTrustworthy(forwardedProto: "http", socketIP: "10.0.0.1"))
        gate.setHTTPS(true)
        XCTAssertTrue(gate.isOriginTrustworthy(forwardedProto: nil, socketIP: "10.0.0.2"))
    }
}
