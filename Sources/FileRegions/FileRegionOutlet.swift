#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import Synchronization

/// A plain-HTTP connection's way to send bytes of a file with sendfile(2), without copying them through qbtd.
///
/// Hummingbird's response writer takes only byte buffers, so a body writes `region(...)`'s marker: a 24-byte buffer
/// that `FileRegionHandler`, right below the HTTP encoder, swaps for the file region it names. Only connections
/// without TLS get an outlet (TLS must encrypt every byte in user space); a route without one writes bytes.
public final class FileRegionOutlet: Sendable {
    struct Region: Sendable {
        var handle: NIOFileHandle
        var offset: Int
        var count: Int
        var sent: EventLoopPromise<Void>
    }

    struct State {
        var next: UInt64 = 0
        var waiting: [UInt64: Region] = [:]
        var closed = false
    }

    private let state = Mutex(State())
    let eventLoop: any EventLoop

    init(eventLoop: any EventLoop) { self.eventLoop = eventLoop }

    /// What the body writes for `count` bytes of `descriptor` from `offset`, and a future that completes once the
    /// kernel has taken them (fails if the connection closes first). The descriptor is duplicated: the caller keeps
    /// and closes its own.
    public func region(descriptor: Int32, offset: Int64, count: Int64) throws -> (marker: ByteBuffer, sent: EventLoopFuture<Void>) {
        precondition(offset >= 0 && count > 0)
        let copy = dup(descriptor)
        guard copy >= 0 else { throw IOError(errnoCode: errno, reason: "dup") }
        return try region(taking: copy, offset: offset, count: count)
    }

    /// As `region(descriptor:offset:count:)`, with the descriptor itself: the outlet closes it, whatever happens.
    public func region(taking descriptor: Int32, offset: Int64, count: Int64) throws -> (marker: ByteBuffer, sent: EventLoopFuture<Void>) {
        precondition(offset >= 0 && count > 0)
        let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: descriptor)
        let sent = eventLoop.makePromise(of: Void.self)
        let id: UInt64? = state.withLock { state in
            guard !state.closed else { return nil }
            state.next += 1
            state.waiting[state.next] = Region(handle: handle, offset: Int(offset), count: Int(count), sent: sent)
            return state.next
        }
        guard let id else {
            try? handle.close()
            sent.fail(ChannelError.ioOnClosedChannel)
            throw ChannelError.ioOnClosedChannel
        }
        var marker = ByteBuffer()
        marker.reserveCapacity(Self.markerLength)
        marker.writeBytes(Self.magic)
        marker.writeInteger(id)
        return (marker, sent.futureResult)
    }

    /// The region a marker names, taken out of the waiting list (nil: not a marker, or one given up).
    func take(_ id: UInt64) -> Region? { state.withLock { $0.waiting.removeValue(forKey: id) } }

    /// The connection is gone: regions never written are closed and their writers told.
    func close() {
        let left = state.withLock { state -> [Region] in
            state.closed = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for region in left {
            try? region.handle.close()
            region.sent.fail(ChannelError.ioOnClosedChannel)
        }
    }

    // MARK: markers

    static let markerLength = 24
    /// Random for each run: no body a client can make or a file holds carries it by chance.
    static let magic: [UInt8] = {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }()

    /// The id in `buffer` when it is a marker.
    static func markerID(_ buffer: ByteBuffer) -> UInt64? {
        guard buffer.readableBytes == markerLength else { return nil }
        let matches = buffer.withUnsafeReadableBytes { raw in magic.withUnsafeBytes { $0.elementsEqual(raw.prefix(16)) } }
        guard matches else { return nil }
        return buffer.getInteger(at: buffer.readerIndex + 16, as: UInt64.self)
    }

    // MARK: connections

    private static let outlets = Mutex<[ObjectIdentifier: FileRegionOutlet]>([:])

    /// The outlet of `channel`, when it has one (a plain-HTTP connection).
    public static func of(_ channel: any Channel) -> FileRegionOutlet? {
        outlets.withLock { $0[ObjectIdentifier(channel)] }
    }

    /// A handler for a plain-HTTP channel, to be added right below its HTTP response encoder (on the socket's
    /// side); from when it is added until it is removed (the channel closes), the channel has an outlet.
    public static func handler(for channel: any Channel) -> any ChannelHandler {
        FileRegionHandler(outlet: FileRegionOutlet(eventLoop: channel.eventLoop))
    }

    static func register(_ outlet: FileRegionOutlet, for channel: any Channel) {
        outlets.withLock { $0[ObjectIdentifier(channel)] = outlet }
    }

    static func unregister(_ channel: any Channel) {
        outlets.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }
}
