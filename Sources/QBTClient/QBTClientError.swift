import Foundation

/// Everything that can go wrong talking to a server, each with what to do next and a distinct exit code for `qbt`.
public enum QBTClientError: Error, CustomStringConvertible, Equatable, Sendable {
    case unreachable(url: String, reason: String)
    case timedOut(url: String, seconds: Int)
    case notLoggedIn(server: String?)
    case loginFailed(url: String)
    case banned(url: String)
    case forbidden(url: String)
    /// A key whose scope does not reach the route (the server's message says what it reaches).
    case outOfScope(String)
    case notFound(String)
    case conflict(String)
    case badRequest(String)
    case unsupported(String)
    case server(status: Int, body: String)
    case badResponse(String)
    case invalidInput(String)
    case invalidCredentials(String)

    /// 1: the server refused; 3: no connection; 4: authentication; 5: no such thing; 64 is ArgumentParser's usage error.
    public var exitCode: Int32 {
        switch self {
        case .unreachable, .timedOut: 3
        case .notLoggedIn, .loginFailed, .banned, .forbidden, .outOfScope, .invalidCredentials: 4
        case .notFound: 5
        case .invalidInput: 2
        case .conflict, .badRequest, .unsupported, .server, .badResponse: 1
        }
    }

    public var description: String {
        switch self {
        case .unreachable(let url, let reason):
            "cannot reach \(url) (\(reason)): is the server running? check the URL with `qbt login URL`"
        case .timedOut(let url, let seconds):
            "\(url) did not answer within \(seconds) s: it is up but busy, or the request waits on the network; try again"
        case .notLoggedIn(let server):
            if let server { "no server named \"\(server)\": see `qbt servers`, or `qbt login URL --name \(server)`" }
            else { "not logged in: run `qbt login URL`, or set QBT_URL (with QBT_USERNAME/QBT_PASSWORD or QBT_API_KEY)" }
        case .loginFailed(let url): "wrong username or password for \(url): try `qbt login \(url)` again"
        case .banned(let url):
            "\(url) has banned this IP after too many failed logins: wait for the ban to expire (see the server's settings)"
        case .forbidden(let url): "\(url) refused the request (403): the session expired or the key is wrong; run `qbt login \(url)`"
        case .outOfScope(let message): "\(message): use a key with a wider scope, or log in (`qbt keys create NAME --scope …` makes one)"
        case .notFound(let what): what
        case .conflict(let message), .badRequest(let message): message
        case .unsupported(let message): message
        case .server(let status, let body): "the server answered \(status)\(body.isEmpty ? "" : ": \(body)")"
        case .badResponse(let message): "unexpected answer from the server: \(message)"
        case .invalidInput(let message), .invalidCredentials(let message): message
        }
    }
}
