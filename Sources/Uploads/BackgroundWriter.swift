import CLibtorrent
import Foundation
import Synchronization

/// Writes and hashes on threads of their own, in 1 MiB blocks, so the request's task only parses and copies: the
/// network, the disk and the hash then run side by side. At most 4 MiB wait between the two; a write
/// error is reported by the next call.
final class BackgroundWriter: @unchecked Sendable {
    private let fd: Int32
    private var position: Int64
    private let digests: [Digest]
    private let queue = DispatchQueue(label: "qbtd.upload.writer")
    private let hashing = DispatchQueue(label: "qbtd.upload.hasher")
    private let slots = DispatchSemaphore(value: 4)
    private var staging: [UInt8] = []
    private let failure = Mutex<UploadError?>(nil)
    static let block = 1 << 20
    static let writeback: Int64 = 32 << 20
    /// Where the last writeback started from (used on the writer queue only).
    private var writtenBack: Int64

    init(fd: Int32, position: Int64, digests: [Digest]) {
        self.fd = fd
        self.position = position
        writtenBack = position
        self.digests = digests
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        if let error = failure.withLock({ $0 }) { throw error }
        var rest = bytes
        while !rest.isEmpty {
            if staging.isEmpty { staging.reserveCapacity(Self.block) }  // the 1 MiB only while there is data
            let take = min(rest.count, Self.block - staging.count)
            staging.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest[0..<take]))
            rest = UnsafeRawBufferPointer(rebasing: rest[take...])
            if staging.count == Self.block { flush() }
        }
    }

    private func flush() {
        guard !staging.isEmpty else { return }
        let data = staging
        let at = position
        position += Int64(data.count)
        staging = []
        slots.wait()
        // Writing and hashing a block go on side by side; the slot frees when both are done.
        let both = DispatchGroup()
        queue.async(group: both) { [self] in
            guard failure.withLock({ $0 }) == nil else { return }
            data.withUnsafeBytes { raw in
                var done = 0
                while done < raw.count {
                    let n = pwrite(fd, raw.baseAddress! + done, raw.count - done, off_t(at) + off_t(done))
                    if n < 0 {
                        if errno == EINTR { continue }
                        let error: UploadError = errno == ENOSPC || errno == EDQUOT
                            ? .diskFull(available: 0, margin: 0) : .io(String(cString: strerror(errno)))
                        failure.withLock { $0 = $0 ?? error }
                        return
                    }
                    done += n
                }
            }
            // The disk starts on what arrived while more arrives: the fsync that acknowledges the upload is short.
            let end = at + Int64(data.count)
            if end - writtenBack >= Self.writeback {
                qbt_start_writeback(fd, writtenBack, end - writtenBack)
                writtenBack = end
            }
        }
        if !digests.isEmpty {
            hashing.async(group: both) { [digests] in data.withUnsafeBytes { raw in for digest in digests { digest.update(raw) } } }
        }
        both.notify(queue: .global()) { [slots] in slots.signal() }
    }

    /// Everything handed over so far is written and hashed (not yet fsynced).
    func drain() throws {
        flush()
        queue.sync {}
        hashing.sync {}
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
