import Foundation

/// One `POST /api/v2/uploads` body on its way to disk: text fields first (they may choose the destination), then
/// file parts streamed into temp files. Files are put in place only when the whole body has arrived.
public final class MultipartUpload {
    public struct Stored: Sendable, Codable, Equatable {
        public let name: String
        public let size: Int64
        public let sha256: String
        public let path: String
    }

    public private(set) var fields: [String: String] = [:]
    /// `overwrite` when the form has no such field (it may come in the query string).
    public var defaultOverwrite = false
    private var parser: MultipartStreamParser
    private var destination: String
    private let margin: Int64
    private let journal: TempFileJournal?
    private let resolve: (_ fields: [String: String]) throws -> String
    private var sinks: [FileSink] = []
    private var current: FileSink?
    private var field: (name: String, value: [UInt8])?
    /// All text fields together (names are not limited in number, so their sum is what is bounded).
    private var fieldBytes = 0
    private let ticket: UploadTicket?
    private static let fieldLimit = 64 * 1024

    /// `resolve` turns the text fields seen so far into the destination folder (it throws for a bad one).
    public init(boundary: String, destination: String, margin: Int64, journal: TempFileJournal?, ticket: UploadTicket?,
                resolve: @escaping (_ fields: [String: String]) throws -> String) {
        parser = MultipartStreamParser(boundary: boundary)
        self.destination = destination
        self.margin = margin
        self.journal = journal
        self.ticket = ticket
        self.resolve = resolve
    }

    deinit { abort() }

    /// Waits (off the thread) until the file being received can take `count` bytes; a file that starts inside the
    /// chunk has all its buffers free.
    public func ready(for count: Int) async { await current?.ready(for: count) }

    public func feed(_ chunk: UnsafeRawBufferPointer) throws {
        ticket?.add(chunk.count)
        do {
            try parser.feed(chunk) { event in try handle(event) }
        } catch let failure as MultipartStreamParser.Failure {
            throw UploadError.badRequest(failure.description)
        }
    }

    private func handle(_ event: MultipartStreamParser.Event) throws {
        switch event {
        case .part(let name, let filename, _):
            if let filename {
                if sinks.isEmpty { destination = try resolve(fields) }
                let safe = try sanitized(filename)
                let sink = try FileSink(directory: destination, name: safe, margin: margin, journal: journal)
                sinks.append(sink)
                current = sink
                if sinks.count == 1 { ticket?.name.withLock { $0 = safe } }
            } else {
                guard sinks.isEmpty || !["path", "category", "overwrite"].contains(name) else {
                    throw UploadError.badRequest("send the \(name) field before the files it applies to")
                }
                field = (name, [])
            }
        case .data(let bytes):
            if let current {
                try current.write(bytes)
            } else if field != nil {
                fieldBytes += bytes.count
                guard fieldBytes <= Self.fieldLimit else {
                    throw UploadError.badRequest("the form's text fields are longer than 64 KiB in all")
                }
                field!.value.append(contentsOf: bytes)
            }
        case .partEnd:
            if let sink = current { try sink.seal() }
            if let f = field { fields[f.name] = String(decoding: f.value, as: UTF8.self) }
            current = nil
            field = nil
        }
    }

    func sanitized(_ filename: String) throws -> String {
        do { return try UploadName.sanitize(filename) } catch let problem as UploadName.Problem { throw UploadError.badName(problem) }
    }

    /// The whole body arrived: every file goes in place (fsynced before). Nothing is placed for a truncated body.
    public func finish() throws -> [Stored] {
        do { try parser.finish() } catch let failure as MultipartStreamParser.Failure { throw UploadError.badRequest(failure.description) }
        guard !sinks.isEmpty else { throw UploadError.badRequest("the form has no file part (a part with a filename)") }
        let overwrite = fields["overwrite"].map { $0 == "true" } ?? defaultOverwrite
        var stored: [Stored] = []
        for sink in sinks {
            let path = try sink.place(overwrite: overwrite)
            stored.append(Stored(name: (path as NSString).lastPathComponent, size: sink.size, sha256: sink.sha256, path: path))
        }
        sinks = []
        return stored
    }

    /// Removes every temp file (a disconnect, a refusal, a failed write).
    public func abort() {
        for sink in sinks { sink.abort() }
        sinks = []
    }
}
