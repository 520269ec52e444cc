import Foundation

/// One PATCH's bytes going into a tus upload's data file. Used by one request task; the service commits it.
public final class TusWriter: @unchecked Sendable {
    public let id: String
    /// The lease this writer was opened under (TusService's `acquire`).
    let lease: UUID
    public let startOffset: Int64
    public private(set) var position: Int64
    /// The offset last made durable by this writer.
    private(set) var committed: Int64
    public let length: Int64?
    /// `--max-upload-size`, which a deferred length cannot be checked against in advance.
    let limit: Int64?
    let fd: Int32
    let checksum: (digest: RunningDigest, expected: [UInt8])?
    let sha256: RunningDigest?
    let ticket: UploadTicket
    private var space: SpaceGuard
    private let writer: BackgroundWriter
    /// Without a per-request checksum, progress is made durable every so often, so a kill loses little.
    static let commitInterval: Int64 = 64 << 20

    init(id: String, lease: UUID, fd: Int32, offset: Int64, length: Int64?, limit: Int64?, checksum: (RunningDigest, [UInt8])?, sha256: RunningDigest?,
         space: SpaceGuard, ticket: UploadTicket) {
        self.id = id
        self.lease = lease
        self.fd = fd
        startOffset = offset
        position = offset
        committed = offset
        self.length = length
        self.limit = limit
        self.checksum = checksum
        self.sha256 = sha256
        self.space = space
        self.ticket = ticket
        writer = BackgroundWriter(fd: fd, position: offset, digests: [checksum?.0, sha256].compactMap { $0 })
    }

    deinit {
        try? writer.drain()
        close(fd)
    }

    /// Waits (off the thread) until `count` bytes can be written without blocking.
    public func ready(for count: Int) async { await writer.ready(for: count) }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard !bytes.isEmpty else { return }
        let end = position + Int64(bytes.count)
        if let length, end > length { throw UploadError.exceedsLength(length) }
        if let limit, end > limit { throw UploadError.tooLarge(limit: limit) }
        do { try writer.write(bytes) } catch UploadError.diskFull { throw space.diskFull() }
        position = end
        ticket.set(position)
        try space.wrote(bytes.count)
    }

    public var wantsCommit: Bool { checksum == nil && position - committed >= Self.commitInterval }

    /// fdatasync: after this the bytes up to `position` survive a crash.
    func sync() throws {
        try writer.drain()
        guard fdatasync(fd) == 0 else { throw UploadError.io("fdatasync: \(String(cString: strerror(errno)))") }
        committed = position
    }

    /// Waits for the writer thread; a failed write cuts the file back to what was last made durable.
    func settle() throws {
        do { try writer.drain() } catch UploadError.diskFull {
            cut(to: committed)
            throw space.diskFull()
        } catch {
            cut(to: committed)
            throw error
        }
    }

    /// A failed checksum: the chunk is cut off again.
    func rollBack() {
        try? writer.drain()
        cut(to: startOffset)
    }

    private func cut(to offset: Int64) {
        ftruncate(fd, off_t(offset))
        position = offset
        ticket.set(offset)
    }
}
