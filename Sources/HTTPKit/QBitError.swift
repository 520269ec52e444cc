import HTTPTypes
import QBTCore

/// qBittorrent's API errors (`APIErrorType`), turned into a status and a plain-text body in one place.
public enum QBitError: HTTPAnswer, Equatable, Sendable {
    case badParams(String? = nil)
    /// A required parameter is absent: 400 `Bad Request`, in 5.2 `Missing required parameters: <name>` (`APIRouter`).
    case missingParameter(String)
    case accessDenied(String? = nil)
    case notFound(String? = nil)
    case conflict(String)
    case unsupportedMediaType(String)
    case methodNotAllowed
    case unauthorized
    case payloadTooLarge
    /// qbtd's own routes: something did not happen in time (504).
    case timeout(String)

    public var status: HTTPResponse.Status {
        switch self {
        case .badParams, .missingParameter: .badRequest
        case .accessDenied: .forbidden
        case .notFound: .notFound
        case .conflict: .conflict
        case .unsupportedMediaType: .unsupportedMediaType
        case .methodNotAllowed: .methodNotAllowed
        case .unauthorized: .unauthorized
        case .payloadTooLarge: .contentTooLarge
        case .timeout: .gatewayTimeout
        }
    }

    /// The message, or else the status text, as qBittorrent's `HTTPError` does.
    public var message: String {
        switch self {
        case .badParams(let m): m ?? "Bad Request"
        case .missingParameter: "Bad Request"
        case .accessDenied(let m): m ?? "Forbidden"
        case .notFound(let m): m ?? "Not Found"
        case .conflict(let m), .unsupportedMediaType(let m): m
        case .methodNotAllowed: "Method Not Allowed"
        case .unauthorized: "Unauthorized"
        case .payloadTooLarge: "Payload Too Large"
        case .timeout(let m): m
        }
    }
}

/// The service's refusals, as qBittorrent's API errors.
extension ServiceError: HTTPAnswer {
    var qBitError: QBitError {
        switch self {
        case .conflict(let m): .conflict(m)
        case .invalid(let m): .badParams(m)
        case .forbidden(let m): .accessDenied(m)
        case .notFound: .notFound()
        }
    }

    public var status: HTTPResponse.Status { qBitError.status }
    public var message: String { qBitError.message }
}
