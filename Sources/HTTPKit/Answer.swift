import HTTPTypes
import Hummingbird
import NIOCore
import QBTCore
import SystemKit

/// The bodies every route answers with: JSON (qbtd's own routes and qBittorrent's JSON answers) and qBittorrent's
/// plain text.
public enum Answer {
    public static func json(_ status: HTTPResponse.Status, _ value: JSONValue) -> Response {
        jsonBody(status, value.serialized())
    }

    public static func jsonBody(_ status: HTTPResponse.Status, _ bytes: some Sequence<UInt8>) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// JSON made a part at a time on the background threads, each part sent before the next is made (no
    /// `Content-Length`: chunked). `lane`, the client's place for the call, is left once the last part is sent or
    /// the answer is dropped unsent; then the freed heap goes back to the system (`FreeMemory`).
    static func jsonParts(_ status: HTTPResponse.Status, _ parts: JSONParts, lane: LanePass?) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody { writer in
            defer {
                lane?.leave()
                FreeMemory.shared.giveBackSoon()  // the parts were freed, but glibc keeps them
            }
            while let part = await inBackground({ parts.nextPart() }) { try await writer.write(part) }
            try await writer.finish(nil)
        })
    }

    public static func plain(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=UTF-8"],
                 body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
