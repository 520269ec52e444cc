import FormData
import Foundation
import HTTPKit
import QBTCore

/// A WebAPI call relayed to the node that runs its torrents, as the catalogue carries it (`commands.request`).
struct RelayedCall: Codable {
    var scope: String
    var action: String
    var fields: [String: String]
    /// The files of a multipart call (`torrents/add`'s .torrent files).
    var files: [File] = []

    struct File: Codable {
        var field: String
        var filename: String
        var data: Data
    }

    init(scope: String, action: String, _ p: Parameters) {
        self.scope = scope
        self.action = action
        fields = p.fields
        files = p.files.map { File(field: $0.field, filename: $0.filename, data: Data($0.data)) }
    }

    var parameters: Parameters {
        Parameters(fields: fields, files: files.map { UploadedFile(field: $0.field, filename: $0.filename, data: Array($0.data)) })
    }
}

/// A relayed call's answer, as the catalogue carries it back (`commands.answer`): an `APIReply`, or the error the
/// owner answered with (its status and message).
indirect enum RelayedReply: Codable {
    case empty, done
    case text(String)
    // Data, not [UInt8]: JSONEncoder writes Data as base64, an array of bytes as a number per byte.
    case json(Data)
    case binary(Data, contentType: String, filename: String?)
    case status(Int, String)
    case withHeaders(RelayedReply, [[String]])
    case accepted(JSONValue)
    case failure(status: Int, message: String)

    init(_ reply: APIReply) throws {
        switch reply {
        case .empty: self = .empty
        case .done: self = .done
        case .text(let text): self = .text(text)
        case .json(let data): self = .json(data)
        case .jsonBytes(let bytes): self = .json(Data(bytes))
        case .jsonParts(let parts): self = .json(Data(parts.joined()))
        case let .binary(bytes, contentType, filename): self = .binary(Data(bytes), contentType: contentType, filename: filename)
        case let .status(code, text): self = .status(code, text)
        case let .withHeaders(inner, headers): self = .withHeaders(try RelayedReply(inner), headers.map { [$0.0, $0.1] })
        case .accepted(let value): self = .accepted(value)
        case .file: throw HTTPRefusal(.notImplemented, "a file of a torrent another node runs is read on that node")
        }
    }

    func reply() throws -> APIReply {
        switch self {
        case .empty: .empty
        case .done: .done
        case .text(let text): .text(text)
        case .json(let data): .json(data)
        case let .binary(data, contentType, filename): .binary(Array(data), contentType: contentType, filename: filename)
        case let .status(code, text): .status(code, text)
        case let .withHeaders(inner, headers): .withHeaders(try inner.reply(), headers.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil })
        case .accepted(let value): .accepted(value)
        case let .failure(status, message): throw HTTPRefusal(.init(code: status), message)
        }
    }
}
