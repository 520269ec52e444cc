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
    }

    deinit { close(fd) }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        if let length, position + Int64(bytes.count) > length { throw UploadError.exceedsLength(length) }
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, base + done, bytes.count - done, off_t(position) + off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                if errno == ENOSPC || errno == EDQUOT { throw UploadError.diskFull(available: 0, margin: space.margin) }
                throw UploadError.io(String(cString: strerror(errno)))
            }
            done += n
        }
        checksum?.digest.update(bytes)
        sha256?.update(bytes)
        position += Int64(bytes.count)
        uncommitted += Int64(bytes.count)
        ticket.set(position)
        try space.wrote(bytes.count)
    }

    public var wantsCommit: Bool { checksum == nil && uncommitted >= Self.commitInterval }

    /// fdatasync: after this the bytes up to `position` survive a crash.
    func sync() throws {
        guard fdatasync(fd) == 0 else { throw UploadError.io("fdatasync: \(String(cString: strerror(errno)))") }
        uncommitted = 0
    }

    /// A failed checksum: the chunk is cut off again.
    func rollBack() {
        ftruncate(fd, off_t(startOffset))
        position = startOffset
        ticket.set(startOffset)
    }
}
