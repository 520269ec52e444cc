import HTTPKit
import HTTPTypes
import Uploads

/// How an upload's refusal answers: JSON `{"error": …}` with these statuses (507 for a full disk, tus's 460 for a
/// checksum mismatch).
extension UploadError: HTTPAnswer {
    public var status: HTTPResponse.Status {
        switch self {
        case .diskFull, .diskRefused: .init(code: 507)
        case .tooLarge: .init(code: 413)
        case .badName, .badRequest, .escapes: .init(code: 400)
        case .outsideRoots: .init(code: 409)
        case .notFound: .init(code: 404)
        case .conflict: .init(code: 409)
        case .forbidden: .init(code: 403)
        case .exceedsLength: .init(code: 413)
        case .checksumMismatch: .init(code: 460, reasonPhrase: "Checksum Mismatch")
        case .unsupportedChecksum: .init(code: 400)
        case .io: .init(code: 500)
        case .tooManyUploads: .init(code: 429)
        }
    }

    public var message: String { description }
}
