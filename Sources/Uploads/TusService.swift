import Foundation
import Logging
import Store

/// tus 1.0.0 uploads: state in SQLite, one data file per upload (beside its destination, so finishing is a rename),
/// one writer at a time. A new request for an upload whose writer has stalled cancels that writer, which commits
/// what it has and lets go.
public actor TusService {
    public static let version = "1.0.0"
    public static let extensions =
        "creation,creation-with-upload,creation-defer-length,termination,checksum,expiration,concatenation"

    public enum Concat: Sendable, Equatable {
        case partial
        case final([String])
    }

    let store: any Store
    let logger: Logger
    public nonisolated let configuration: UploadConfiguration
    let board: ProgressBoard
    private var leases: [String: Lease] = [:]
    /// The running SHA-256 of an upload's bytes, while this process has seen them all in order.
    private var hashes: [String: (digest: RunningDigest, offset: Int64)] = [:]

    struct Lease {
        let token: UUID
        let cancel: @Sendable () -> Void
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    public init(store: any Store, configuration: UploadConfiguration, board: ProgressBoard,
                logger: Logger = Logger(label: "qbtd.tus")) async throws {
        self.logger = logger
        self.store = store
        self.configuration = configuration
        self.board = board
        try FileManager.default.createDirectory(atPath: partialsDirectory, withIntermediateDirectories: true)
        // Neither stops the server: what they could not do waits for the next sweep, or the next start.
        do { try await sweep() } catch { logger.warning("expired tus uploads stay until the next sweep: \(error)") }
        do { try await removeOrphans() } catch { logger.warning("upload temp files are kept until the next start: \(error)") }
    }

    static let dataPrefix = ".qbtd-tus-"

    /// Temp files a crash left: those noted in the journal wherever they are, and any in the uploads folder (a
    /// multipart upload's, none runs yet; tus data files without a record).
    func removeOrphans() async throws {
        // A failed read throws: an empty list would take every upload's data file for an orphan.
        let records = try await store.tus.tusUploads()
        for record in records where record.isFinished { Self.completeLanding(record) }
        let live = Set(records.filter { !$0.isFinished }.map { Self.dataPath($0) })
        configuration.journal.sweep(keeping: live)
        let root = configuration.uploadsDirectory
        guard let walker = FileManager.default.enumerator(atPath: root) else { return }
        for case let relative as String in walker {
            let name = (relative as NSString).lastPathComponent
            guard name.hasSuffix(".part"), name.hasPrefix(FileSink.tempPrefix) || name.hasPrefix(Self.dataPrefix) else { continue }
            let path = root + "/" + relative
            if !live.contains(path) { unlink(path) }
        }
    }

    var partialsDirectory: String { configuration.uploadsDirectory + "/.tus" }

    static func dataPath(_ r: TusUploadRecord) -> String { r.destination + "/" + dataPrefix + r.id + ".part" }

    func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

    /// When each upload expires, on the steady clock: `expires_at` is the wall stamp clients see (`Upload-Expires`)
    /// and the next start reads, but a step of the wall clock must neither expire an upload early nor keep it for
    /// good. An upload first seen after a start gets what its stamp has left (at most the expiry).
    private var deadlines: [String: ContinuousClock.Instant] = [:]

    private func renew(_ id: String) {
        deadlines[id] = .now + .seconds(configuration.tusExpiry)
    }

    func isExpired(_ record: TusUploadRecord) -> Bool {
        let deadline = deadlines[record.id] ?? {
            let left = min(max(0, Double(record.expiresAt - now())), configuration.tusExpiry)
            let seeded = ContinuousClock.now + .milliseconds(Int64(left * 1000))
            deadlines[record.id] = seeded
            return seeded
        }()
        return ContinuousClock.now >= deadline
    }

    // MARK: Creation

    public func create(length: Int64?, metadata: [String: String], concat: Concat?, destinations: Destinations) async throws -> TusUploadRecord {
        // Each unfinished upload holds a file and a record until it finishes or expires: a bounded number at once.
        if try await store.tus.unfinishedTusUploadCount() >= configuration.maxTusUploadsInProgress {
            throw UploadError.tooManyUploads(configuration.maxTusUploadsInProgress)
        }
        let id = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let name = try Self.fileName(metadata, fallback: id)
        let destination: String
        if concat == .partial {
            destination = partialsDirectory
        } else {
            destination = try destinations.resolve(path: metadata["path"], category: metadata["category"])
        }
        var record = TusUploadRecord(id: id, length: length, metadata: metadata, destination: destination,
                                     createdAt: now(), expiresAt: now() + Int64(configuration.tusExpiry))
        record.metadata["filename"] = name
        if case .final(let ids) = concat {
            return try await createFinal(record, parts: ids, destinations: destinations)
        }
        record.concat = concat == .partial ? "partial" : nil
        if let length { try configuration.preflight(bytes: length, at: destination) }
        // Noted until its record is saved: a crash in between must not leave a data file nobody owns.
        let note = try configuration.journal.note(Self.dataPath(record))
        defer { configuration.journal.forget(note) }
        let fd = open(Self.dataPath(record), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw UploadError.io("cannot create the upload's file in \(destination): \(String(cString: strerror(errno)))") }
        close(fd)
        do { try await store.tus.saveTusUpload(record) } catch { unlink(Self.dataPath(record)); throw error }
        hashes[id] = (RunningDigest("sha256")!, 0)
        renew(id)
        if length == 0 { return try await finish(record) }
        return record
    }

    static func fileName(_ metadata: [String: String], fallback: String) throws -> String {
        let raw = metadata["filename"] ?? metadata["name"] ?? fallback
        do { return try UploadName.sanitize(raw) } catch let problem as UploadName.Problem { throw UploadError.badName(problem) }
    }

    /// `Upload-Concat: final;…`: the finished partial uploads, in order, become one file.
    private func createFinal(_ base: TusUploadRecord, parts ids: [String], destinations: Destinations) async throws -> TusUploadRecord {
        guard !ids.isEmpty else { throw UploadError.badRequest("Upload-Concat: final needs the partial uploads' URLs") }
        var parts: [TusUploadRecord] = []
        for id in ids {
            guard let part = try await live(id) else { throw UploadError.badRequest("unknown partial upload \(id)") }
            guard part.concat == "partial" else { throw UploadError.badRequest("upload \(id) is not a partial upload") }
            guard let length = part.length, part.offset == length else { throw UploadError.badRequest("partial upload \(id) is not finished") }
            parts.append(part)
        }
        var record = base
        record.concat = "final"
        record.parts = ids
        record.length = parts.reduce(0) { $0 + ($1.length ?? 0) }
        record.offset = record.length!
        try configuration.preflight(bytes: record.length!, at: record.destination)
        let path = Self.dataPath(record)
        let note = try configuration.journal.note(path)
        defer { configuration.journal.forget(note) }
        let out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard out >= 0 else { throw UploadError.io("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(out) }
        let sha = RunningDigest("sha256")!
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        for part in parts {
            let input = open(Self.dataPath(part), O_RDONLY | O_CLOEXEC)
            guard input >= 0 else { unlink(path); throw UploadError.io("partial upload \(part.id) lost its data") }
            defer { close(input) }
            var left = part.length ?? 0
            while left > 0 {
                let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, Int(min(Int64($0.count), left))) }
                guard n > 0 else { unlink(path); throw UploadError.io("partial upload \(part.id) is shorter than its length") }
                try buffer.withUnsafeBytes { chunk in
                    let slice = UnsafeRawBufferPointer(rebasing: chunk[0..<n])
                    guard Glibc.write(out, slice.baseAddress, n) == n else { unlink(path); throw UploadError.io(String(cString: strerror(errno))) }
                    sha.update(slice)
                }
                left -= Int64(n)
            }
        }
        guard fdatasync(out) == 0 else { unlink(path); throw UploadError.io("fdatasync failed") }
        do { try await store.tus.saveTusUpload(record) } catch { unlink(path); throw error }
        renew(record.id)
        hashes[record.id] = (sha, record.length!)
        return try await finish(record)
    }

    // MARK: Lookup, leases

    /// The upload, or nil when unknown or expired (an expired one is removed on the spot).
    public func live(_ id: String) async throws -> TusUploadRecord? {
        guard id.count <= 64, let record = try await store.tus.tusUpload(id) else { return nil }
        if isExpired(record), leases[id] == nil {
            try await remove(record)
            return nil
        }
        return record
    }

    /// Takes the upload for one writer; a writer already there is cancelled and waited for first.
    public func acquire(_ id: String, cancel: @escaping @Sendable () -> Void) async -> UUID {
        // Two newcomers both woken by one release: only one may take the lease, the other waits again.
        while leases[id] != nil { await interrupt(id) }
        let token = UUID()
        leases[id] = Lease(token: token, cancel: cancel)
        return token
    }

    public func release(_ id: String, _ token: UUID) {
        guard let lease = leases[id], lease.token == token else { return }
        leases[id] = nil
        for waiter in lease.waiters { waiter.resume() }
    }

    /// Stops the upload's writer, if any, and waits (bounded) until it has committed and let go.
    public func interrupt(_ id: String) async {
        guard let lease = leases[id] else { return }
        lease.cancel()
        let token = lease.token
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            leases[id]?.waiters.append(continuation)
            Task { [weak self] in
                try? await Task.sleep(for: .seconds(10))
                await self?.forceRelease(id, token)
            }
        }
    }

    /// A writer stuck for 10 s after being asked to stop loses its lease; from then on it may not commit.
    private func forceRelease(_ id: String, _ token: UUID) {
        if leases[id]?.token == token { hashes[id] = nil }  // its writer may still feed the running hash
        release(id, token)
    }

    private func holdsLease(_ writer: TusWriter) throws {
        guard leases[writer.id]?.token == writer.lease else { throw UploadError.conflict("another request took over this upload") }
    }

    // MARK: Writing

    /// Opens the upload for a PATCH at `offset`. The data file is cut back to the durable offset first: bytes a
    /// crash left past it were never acknowledged.
    public func openWriter(_ id: String, lease: UUID, offset: Int64, uploadLength: Int64?, checksum: String?,
                           contentLength: Int64?) async throws -> TusWriter {
        guard var record = try await live(id) else { throw UploadError.notFound("no upload \(id) (unknown, ended or expired)") }
        guard record.concat != "final" else { throw UploadError.forbidden("a final concatenated upload cannot be patched") }
        guard offset == record.offset else {
            throw UploadError.conflict("Upload-Offset \(offset) does not match the upload's offset \(record.offset)")
        }
        if let uploadLength {
            if let known = record.length, known != uploadLength { throw UploadError.badRequest("Upload-Length cannot change once set") }
            if record.length == nil {
                guard uploadLength >= record.offset else { throw UploadError.badRequest("Upload-Length is less than what was received") }
                try configuration.preflight(bytes: uploadLength - record.offset, at: record.destination)
                record.length = uploadLength
                try await store.tus.setTusOffset(id, offset: record.offset, length: uploadLength, expiresAt: record.expiresAt)
            }
        }
        if let length = record.length, let contentLength, offset + contentLength > length { throw UploadError.exceedsLength(length) }
        if let contentLength { try configuration.preflight(bytes: contentLength, at: record.destination) }
        let expected = try checksum.map(TusHeaders.checksum)
        let fd = open(Self.dataPath(record), O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw UploadError.io("the upload's data file is gone: \(String(cString: strerror(errno)))") }
        guard ftruncate(fd, off_t(record.offset)) == 0 else { close(fd); throw UploadError.io("cannot trim the data file") }
        let running = hashes[id].flatMap { $0.offset == record.offset ? $0.digest : nil }
        let ticket = board.open(kind: "tus", name: record.metadata["filename"] ?? id, total: record.length, id: id,
                                startingAt: record.offset)
        return TusWriter(id: id, lease: lease, fd: fd, offset: record.offset, length: record.length, limit: configuration.maxUploadSize,
                         checksum: expected, sha256: running,
                         space: SpaceGuard(path: record.destination, margin: configuration.margin), ticket: ticket)
    }

    /// Makes what the writer wrote durable and records the new offset.
    /// The fdatasync runs in the caller's task, not on the actor, which every other tus request needs meanwhile.
    public nonisolated func commit(_ writer: TusWriter) async throws {
        try writer.sync()
        try await record(writer)
    }

    private func record(_ writer: TusWriter) async throws {
        try holdsLease(writer)
        try await store.tus.setTusOffset(writer.id, offset: writer.position, length: writer.length,
                                     expiresAt: now() + Int64(configuration.tusExpiry))
        renew(writer.id)
        if let sha = writer.sha256 { hashes[writer.id] = (sha, writer.position) }
    }

    /// The PATCH is over (its body ended, failed or was cancelled): checks the checksum, commits, and lands the
    /// file once every byte is there.
    public func closeWriter(_ writer: TusWriter) async throws -> TusUploadRecord {
        defer { board.close(writer.ticket) }
        try holdsLease(writer)  // one whose lease was forced away must not cut or record what the next one wrote
        do { try writer.settle() } catch {
            hashes[writer.id] = nil  // the offset stays at what was last committed
            throw error
        }
        if let (digest, expected) = writer.checksum, digest.value != expected {
            writer.rollBack()
            hashes[writer.id] = nil  // the running hash saw the discarded bytes
            throw UploadError.checksumMismatch
        }
        try await commit(writer)
        guard let record = try await store.tus.tusUpload(writer.id) else { throw UploadError.notFound("the upload was terminated") }
        if let length = record.length, record.offset == length, record.concat == nil, !record.isFinished {
            return try await finish(record)
        }
        return record
    }

    /// Every byte is there: the data file becomes the destination file (same folder: a rename), hashed.
    private func finish(_ record: TusUploadRecord) async throws -> TusUploadRecord {
        let data = Self.dataPath(record)
        let sha: String
        if let running = hashes[record.id], running.offset == record.length { sha = running.digest.hex } else {
            sha = try Self.hashFile(data)
        }
        let name = record.metadata["filename"] ?? record.id
        let target = record.destination + "/" + name
        let parent = (target as NSString).deletingLastPathComponent
        _ = try FileSink.makeParent(parent, inside: record.destination)
        // Write-ahead, so that a crash at any point leaves an upload that is either unfinished with its data file
        // (the client's retried PATCH finishes it) or finished with its file in place (`completeLanding` at the
        // next start tidies up). Without overwrite: a second name for the data file first (a name left by an
        // earlier try that crashed is the same file, and is taken again), then the record, then the data file's
        // name goes. With overwrite: the record first, then the rename over the old file.
        let overwrite = record.metadata["overwrite"] == "true"
        var done = record
        done.sha256 = sha
        if overwrite {
            done.resultPath = target
            try await store.tus.saveTusUpload(done)
            _ = try FileSink.place(data, at: target, overwrite: true, onFailure: {})
        } else {
            done.resultPath = try FileSink.link(data, at: target)
            try await store.tus.saveTusUpload(done)
            unlink(data)
        }
        hashes[record.id] = nil
        return done
    }

    /// A finished upload whose data file is still there: a crash came between its record and its rename (overwrite:
    /// the data goes over the old file now) or its unlink (the file already has its own name: the data file's goes).
    static func completeLanding(_ record: TusUploadRecord) {
        guard let placed = record.resultPath else { return }
        let data = dataPath(record)
        var dataStat = stat(), placedStat = stat()
        guard stat(data, &dataStat) == 0 else { return }
        if stat(placed, &placedStat) == 0, placedStat.st_ino == dataStat.st_ino, placedStat.st_dev == dataStat.st_dev {
            unlink(data)
        } else {
            _ = try? FileSink.place(data, at: placed, overwrite: true, onFailure: {})
        }
    }

    static func hashFile(_ path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw UploadError.io("cannot read \(path)") }
        defer { try? handle.close() }
        let sha = RunningDigest("sha256")!
        while let chunk = try handle.read(upToCount: 4 << 20), !chunk.isEmpty { chunk.withUnsafeBytes { sha.update($0) } }
        return sha.hex
    }

    // MARK: Termination, expiry

    public func terminate(_ id: String) async throws {
        await interrupt(id)
        guard let record = try await live(id) else { throw UploadError.notFound("no upload \(id)") }
        try await remove(record)
    }

    /// Unfinished uploads lose their data file; finished ones only their record (the file has landed). The record
    /// goes first: when SQLite refuses, the upload is still whole and the error reaches the caller.
    private func remove(_ record: TusUploadRecord) async throws {
        try await store.tus.deleteTusUpload(record.id)
        if !record.isFinished { unlink(Self.dataPath(record)) }
        hashes[record.id] = nil
        deadlines[record.id] = nil
    }

    /// Removes every expired upload; run at start and then every minute. A write SQLite refuses throws, and the
    /// uploads it did not remove are tried again at the next sweep.
    public func sweep() async throws {
        for record in try await store.tus.tusUploads() where isExpired(record) && leases[record.id] == nil {
            try await remove(record)
        }
    }
}
