import HTTPTypes
import Hummingbird
import Logging
import QBTCore

/// An error that knows how it answers over HTTP. Domain errors conform in the HTTP target that serves them (the
/// domain targets carry no status codes); `ErrorAnswer.response` is the one place any error becomes a response.
public protocol HTTPAnswer: Error {
    var status: HTTPResponse.Status { get }
    /// The body's text: qBittorrent's plain text on its routes, the `error` of `{"error": …}` on qbtd's own.
    var message: String { get }
    /// Headers the answer carries besides the body's (a 416's `Content-Range`, a 401's `WWW-Authenticate`).
    var headers: HTTPFields { get }
}

extension HTTPAnswer {
    public var headers: HTTPFields { [:] }
}

/// A route's own refusal: a status, a message that says what to do, and any headers.
public struct HTTPRefusal: HTTPAnswer {
    public var status: HTTPResponse.Status
    public var message: String
    public var headers: HTTPFields

    public init(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.message = message
        self.headers = headers
    }
}

public enum ErrorAnswer {
    /// qBittorrent's routes answer errors in plain text; qbtd's own as `{"error": "…"}`.
    public enum Style: Sendable { case plain, json }

    /// The answer to `error`: its own status, message and headers when it has them (`HTTPAnswer`); otherwise a 500,
    /// logged with `route`, whose body is qBittorrent's `Internal Server Error` (plain) or the error's text (JSON).
    public static func response(for error: any Error, style: Style, route: @autoclosure () -> String,
                                logger: Logger = ErrorAnswer.logger) -> Response {
        guard let answer = error as? any HTTPAnswer else {
            logger.error("\(route()) failed: \(error)")
            return style == .json ? jsonError(.internalServerError, "\(error)") : Answer.plain(.internalServerError, "Internal Server Error")
        }
        // A server-side failure the answer explains (a refused write, a full disk) is logged too: log/main is where
        // an operator looks for what failed.
        if answer.status.code >= 500 { logger.error("\(route()) failed: \(answer.message)") }
        var response = style == .json ? jsonError(answer.status, answer.message) : Answer.plain(answer.status, answer.message)
        for field in answer.headers { response.headers[field.name] = field.value }
        return response
    }

    /// A route's body; whatever it throws is answered by `response(for:)`.
    public static func guarding(_ style: Style, route: @autoclosure () -> String, logger: Logger = ErrorAnswer.logger,
                                _ body: () async throws -> Response) async -> Response {
        do { return try await body() } catch { return response(for: error, style: style, route: route(), logger: logger) }
    }

    public static let logger = Logger(label: "qbtd")

    public static func jsonError(_ status: HTTPResponse.Status, _ message: String) -> Response {
        Answer.json(status, .object(["error": .string(message)]))
    }
}
