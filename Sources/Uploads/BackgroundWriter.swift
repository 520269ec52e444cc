import CLinux
import Foundation
import Synchronization

/// Writes and hashes on threads of their own, in 1 MiB blocks, so the request's task only parses and copies: the
/// network, the disk and the hash then run side by side. Blocks come from a pool of four page-aligned buffers that
/// are reused (fresh 1 MiB allocations cost a page fault per 4 KiB). Callers `await ready(for:)` before each write:
/// that is the flow control, and a request task waits for a free buffer there without holding a thread of the
/// cooperative pool, so at most 4 MiB wait between the two (a chunk larger than the pool borrows more for a moment).
///
/// Whole blocks go to the disk with O_DIRECT where the file system allows it: a buffered write copies every byte into
/// the page cache and the kernel writes it back later, which on two cores costs as much CPU as receiving it. Block
/// boundaries are kept at multiples of the block size from the file's start, so only a resumed upload's first block
/// and an upload's last one are partial; those go through the page cache. A write error is reported by the next call.
final class BackgroundWriter: @unchecked Sendable {
    private let fd: Int32
    /// The same file opened with O_DIRECT, or -1 (then every block is buffered).
    private var direct: Int32
    private var position: Int64
    private let digests: [RunningDigest]
    private let queue = DispatchQueue(label: "qbtd.upload.writer")
    private let hashing = DispatchQueue(label: "qbtd.upload.hasher")
    /// Buffers not in flight, and the task waiting for some (only one task feeds a writer).
    private let pool = Mutex<Pool>(Pool())
    private struct Pool {
        var idle: [UnsafeMutableRawPointer] = []
        var made = 0
        var waiter: (need: Int, continuation: CheckedContinuation<Void, Never>)?
        /// Idle buffers and those not made yet.
        var free: Int { idle.count + max(0, BackgroundWriter.buffers - made) }
    }
    /// Every buffer made (freed with the writer); used on the caller's side only.
    private var allocated: [UnsafeMutableRawPointer] = []
    /// The block being filled, how much it holds and how much it may hold (less than a block only to realign).
    private var current: UnsafeMutableRawPointer?
    private var filled = 0
    private var capacity = 0
    private let failure = Mutex<UploadError?>(nil)
    static let block = 1 << 20
    static let buffers = 4
    static let alignment = 4096
    static let writeback: Int64 = 32 << 20
    /// Where the last writeback of buffered blocks started from (used on the writer queue only).
    private var writtenBack: Int64

    init(fd: Int32, position: Int64, digests: [RunningDigest]) {
        self.fd = fd
        self.position = position
        writtenBack = position
        self.digests = digests
        direct = qbt_reopen_direct(fd)
    }

    deinit {  // the queues' blocks hold the writer, so they are all done by now
        if direct >= 0 { close(direct) }
        for buffer in allocated { free(buffer) }
    }

    /// Returns once `count` more bytes can be written without waiting for a buffer.
    func ready(for count: Int) async {
        // The buffer being filled is not free, so no more than the others can be asked for.
        let need = min(Self.buffers - (current == nil ? 0 : 1), buffersNeeded(for: count))
        guard need > 0, pool.withLock({ $0.free < need }) else { return }
        await withCheckedContinuation { continuation in
            let now = pool.withLock { pool in
                if pool.free >= need { return true }
                pool.waiter = (need, continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// How many buffers `count` more bytes would take from the pool.
    private func buffersNeeded(for count: Int) -> Int {
        var rest = count
        var needed = 0
        if current != nil {
            rest -= capacity - filled
        } else if rest > 0 {
            needed = 1
            rest -= Self.block - Int(position % Int64(Self.block))
        }
        if rest > 0 { needed += (rest + Self.block - 1) / Self.block }
        return needed
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        if let error = failure.withLock({ $0 }) { throw error }
        var rest = bytes
        while !rest.isEmpty {
            let target = current ?? take()
            let count = min(rest.count, capacity - filled)
            (target + filled).copyMemory(from: rest.baseAddress!, byteCount: count)
            filled += count
            rest = UnsafeRawBufferPointer(rebasing: rest[count...])
            if filled == capacity { flush() }
        }
    }

    /// An idle buffer, or a new one, sized so the block ends on a block boundary.
    private func take() -> UnsafeMutableRawPointer {
        let buffer = pool.withLock { pool -> UnsafeMutableRawPointer? in
            if let idle = pool.idle.popLast() { return idle }
            pool.made += 1
            return nil
        } ?? allocate()
        current = buffer
        filled = 0
        capacity = Self.block - Int(position % Int64(Self.block))
        return buffer
    }

    private func allocate() -> UnsafeMutableRawPointer {
        var memory: UnsafeMutableRawPointer?
        guard posix_memalign(&memory, Self.alignment, Self.block) == 0, let memory else { fatalError("out of memory") }
        allocated.append(memory)
        return memory
    }

    private func flush() {
        guard let buffer = current, filled > 0 else { return }
        let block = Block(start: buffer, count: filled)
        let at = position
        position += Int64(filled)
        current = nil
        filled = 0
        // Writing and hashing a block go on side by side; the buffer returns to the pool when both are done.
        let both = DispatchGroup()
        queue.async(group: both) { [self] in
            guard failure.withLock({ $0 }) == nil else { return }
            if let error = store(block.bytes, at: at) { failure.withLock { $0 = $0 ?? error } }
        }
        if !digests.isEmpty {
            hashing.async(group: both) { [digests] in for digest in digests { digest.update(block.bytes) } }
        }
        both.notify(queue: .global()) { [self] in
            let waiting = pool.withLock { pool -> CheckedContinuation<Void, Never>? in
                pool.idle.append(block.start)
                guard let waiter = pool.waiter, pool.free >= waiter.need else { return nil }
                pool.waiter = nil
                return waiter.continuation
            }
            waiting?.resume()
        }
    }

    /// On the writer queue: one block, directly when it is aligned, else through the page cache.
    private func store(_ bytes: UnsafeRawBufferPointer, at: Int64) -> UploadError? {
        if direct >= 0, at % Int64(Self.alignment) == 0, bytes.count % Self.alignment == 0 {
            if let errno = pwriteAll(direct, bytes, at) {
                guard errno == EINVAL else { return Self.error(errno) }
                close(direct)  // the file system takes O_DIRECT opens but not the writes: buffered from now on
                direct = -1
            } else {
                return nil
            }
        }
        if let errno = pwriteAll(fd, bytes, at) { return Self.error(errno) }
        // The disk starts on what arrived while more arrives: the fsync that acknowledges the upload is short.
        let end = at + Int64(bytes.count)
        if end - writtenBack >= Self.writeback {
            qbt_start_writeback(fd, writtenBack, end - writtenBack)
            writtenBack = end
        }
        return nil
    }

    /// nil when every byte is written, else the errno.
    private func pwriteAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ at: Int64) -> Int32? {
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(at) + off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            done += n
        }
        return nil
    }

    private static func error(_ code: Int32) -> UploadError {
        code == ENOSPC || code == EDQUOT ? .diskFull(available: 0, margin: 0) : .io(String(cString: strerror(code)))
    }

    /// A filled buffer on its way through the two queues; it is not touched again until it is back in the pool.
    private struct Block: @unchecked Sendable {
        let start: UnsafeMutableRawPointer
        let count: Int
        var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: start, count: count) }
    }

    /// Everything handed over so far is written and hashed (not yet fsynced).
    func drain() throws {
        flush()
        queue.sync {}
        hashing.sync {}
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
