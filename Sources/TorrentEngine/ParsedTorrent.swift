import CLibtorrent
import Dispatch

/// A .torrent or magnet parsed once: its id and name for the checks before an add, and the parse itself
/// for the add (libtorrent's torrent_info is shared, not parsed again).
public final class ParsedTorrent: @unchecked Sendable {
    public let id: TorrentID
    public let name: String
    public let source: AddTorrentRequest.Source
    let handle: OpaquePointer

    /// Parses without touching any session; throws `invalidTorrent` with libtorrent's reason.
    public init(_ source: AddTorrentRequest.Source) throws {
        var name: UnsafeMutablePointer<CChar>?
        var error: UnsafeMutablePointer<CChar>?
        var parsed: OpaquePointer?
        let (_, id) = withIDBuffer { idBuffer in
            switch source {
            case .metainfo(let bytes):
                parsed = bytes.withUnsafeBufferPointer { qbt_torrent_parse($0.baseAddress, $0.count, nil, idBuffer, &name, &error) }
            case .magnet(let uri):
                parsed = qbt_torrent_parse(nil, 0, uri, idBuffer, &name, &error)
            }
            return parsed == nil ? QBT_ERR_INVALID : QBT_OK
        }
        guard let parsed else { throw EngineError.invalidTorrent(takeCString(error)) }
        self.handle = parsed
        self.id = id
        self.name = takeCString(name)
        self.source = source
    }

    deinit { qbt_torrent_free(handle) }

    /// Parses many sources at once, spread over every core (blocking: call it off the concurrency pool). A source
    /// that does not parse gives nil.
    public static func parseAll(_ sources: [AddTorrentRequest.Source]) -> [ParsedTorrent?] {
        let slots = UnsafeMutableBufferPointer<ParsedTorrent?>.allocate(capacity: sources.count)
        slots.initialize(repeating: nil)
        defer { slots.deinitialize().deallocate() }
        nonisolated(unsafe) let shared = slots  // each iteration writes its own slot only
        DispatchQueue.concurrentPerform(iterations: sources.count) { i in shared[i] = try? ParsedTorrent(sources[i]) }
        return Array(slots)
    }
}
