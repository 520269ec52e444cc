import HTTPTypes
import Hummingbird
import NIOCore
import QBTCore

/// The bodies every route answers with: JSON (qbtd's own routes and qBittorrent's JSON answers) and qBittorrent's
/// plain text.
public enum Answer {
    public static func json(_ status: HTTPResponse.Status, _ value: JSONValue) -> Response {
        jsonBody(status, value.serialized())
    }

    public static func jsonBody(_ status: HTTPResponse.Status, _ bytes: some Sequence<UInt8>) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    public static func plain(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=UTF-8"],
                 body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
