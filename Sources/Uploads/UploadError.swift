import Foundation

/// Why an upload was refused or stopped (the HTTP layer says how each answers: `UploadHTTP`).
public enum UploadError: Error, CustomStringConvertible, Equatable {
    case diskFull(available: Int64, margin: Int64)
    /// A write refused with ENOSPC or EDQUOT while statvfs sees room beyond the margin: a quota, or a filesystem full
    /// by its own count (inodes, reserved blocks).
    case diskRefused(available: Int64)
    case tooLarge(limit: Int64)
    case badName(UploadName.Problem)
    case badRequest(String)
    /// A `path` outside `--allowed-paths` (409, as save paths are).
    case outsideRoots(String, roots: [String])
    /// A name whose sub-folders lead out of the folder it is uploaded to (a symlink inside it).
    case escapes(String)
    case notFound(String)
    case conflict(String)
    case forbidden(String)
    case exceedsLength(Int64)
    case checksumMismatch
    case unsupportedChecksum(String)
    case io(String)
    /// As many tus uploads unfinished as qbtd keeps at once.
    case tooManyUploads(Int)

    public var description: String {
        switch self {
        case .diskRefused(let available):
            "the disk refused the write (no space left on the device, or a quota reached) although \(available) bytes "
                + "are free; free some space, raise the quota or upload elsewhere"
        case .diskFull(let available, let margin):
            "not enough free space: \(available) bytes free, and \(margin) must stay free; free some space or upload less"
        case .tooLarge(let limit): "the upload is larger than the \(limit)-byte limit (--max-upload-size)"
        case .badName(let problem): problem.description
        case .badRequest(let message), .conflict(let message), .notFound(let message): message
        case .forbidden(let message): message
        case .exceedsLength(let length): "more bytes than the upload's length (\(length))"
        case .checksumMismatch: "Upload-Checksum does not match the data: the chunk was discarded, send it again"
        case .unsupportedChecksum(let name): "unsupported checksum algorithm \(name): use sha1, sha256 or md5"
        case .outsideRoots(let path, let roots):
            "\(path) is outside the folders qbtd may use (\(roots.joined(separator: ", "))); start qbtd with a wider --allowed-paths to use it"
        case .escapes(let path): "\(path) leads outside the folder the upload goes to"
        case .io(let message): "the server could not write the upload: \(message)"
        case .tooManyUploads(let limit):
            "\(limit) uploads are unfinished already: finish or delete some (DELETE /api/v2/tus/<id>), or wait for them to expire"
        }
    }
}
