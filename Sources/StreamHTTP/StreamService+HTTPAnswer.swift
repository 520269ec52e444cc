import HTTPKit
import HTTPTypes
import Streaming

/// How the stream service's refusals answer (as JSON: qbtd's routes).
extension StreamService.Failure: HTTPAnswer {
    public var status: HTTPResponse.Status {
        switch self {
        case .unknownStream: .notFound
        case .invalidSource, .fileIndex: .badRequest
        case .noFiles, .stopped: .conflict
        case .metadataTimeout, .stalled: .gatewayTimeout
        case .storage: .init(code: 507)  // Insufficient Storage, as an upload into a full disk answers
        }
    }

    public var message: String { description }
}
