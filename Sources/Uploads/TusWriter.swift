import Foundation

/// One PATCH's bytes going into a tus upload's data file. Used by one request task; the service commits it.
public final class TusWriter: @unchecked Sendable {
    public let id: String
    public let startOffset: Int64
    public private(set) var position: Int64
    public let length: Int64?
    let fd: Int32
    let checksum: (digest: Digest, expected: [UInt8])?
    let sha256: Digest?
    let ticket: UploadTicket
    private var space: SpaceGuard
    private(set) var uncommitted: Int64 = 0
    /// Without a per-request checksum, progress is made durable every so often, so a kill loses little.
    static let commitInterval: Int64 = 64 << 20

    init(id: String, fd: Int32, offset: Int64, length: Int64?, checksum: (Digest, [UInt8])?, sha256: Digest?,
         space: SpaceGuard, ticket: UploadTicket) {
        self.id = id
        self.fd = fd
        startOffset = offset
        position = offset
        self.length = length
        self.checksum = checksum
        self.sha256 = sha256
        self.space = space
        self.ticket = ticket
        writer = BackgroundWriter(fd: fd, position: offset, digests: [checksum?.0, sha256].compactMap { $0 })
        committed = offset
    }

    deinit {
        try? writer.drain()
        close(fd)
    }

    private let writer: BackgroundWriter

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard !bytes.isEmpty else { return }
        if let length, position + Int64(bytes.count) > length { throw UploadError.exceedsLength(length) }
        try writer.write(bytes)
        position += Int64(bytes.count)
        uncommitted += Int64(bytes.count)
        ticket.set(position)
        try space.wrote(bytes.count)
    }

    public var wantsCommit: Bool { checksum == nil && uncommitted >= Self.commitInterval }

    /// fdatasync: after this the bytes up to `position` survive a crash.
    func sync() throws {
        try writer.drain()
        guard fdatasync(fd) == 0 else { throw UploadError.io("fdatasync: \(String(cString: strerror(errno)))") }
        uncommitted = 0
        committed = position
    }

    /// Waits for the writer thread; a failed write cuts the file back to what was last made durable.
    func settle() throws {
        do { try writer.drain() } catch {
            ftruncate(fd, off_t(committed))
            position = committed
            ticket.set(committed)
            throw error
        }
    }

    /// The offset last made durable by this writer.
    private(set) var committed: Int64 = 0

    /// A failed checksum: the chunk is cut off again.
    func rollBack() {
        try? writer.drain()
        ftruncate(fd, off_t(startOffset))
        position = startOffset
        ticket.set(startOffset)
    }
}
