import Foundation
import Store
import XCTest

@testable import Uploads

/// A tus upload lands in three steps (a second name, the record, the data file's name gone; with overwrite: the
/// record, then the rename). Each test leaves what a SIGKILL between two of them leaves and starts a new service on
/// it, as the next start does: the upload ends whole, once, under one name, and a retried PATCH finishes it.
final class TusLandingTests: XCTestCase {
    var root = ""
    var store: (any Store)!

    override func setUp() async throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("tus-landing-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/uploads", withIntermediateDirectories: true)
        store = try SQLiteStore(path: root + "/qbtd.sqlite")
    }

    override func tearDown() async throws { try? FileManager.default.removeItem(atPath: root) }

    func service() async throws -> TusService {
        try await TusService(store: store, configuration: UploadConfiguration(uploadsDirectory: root + "/uploads", confinement: nil),
                             board: ProgressBoard())
    }

    /// A whole upload that has not landed yet: its record at offset == length, and its data file.
    func received(_ bytes: String, overwrite: Bool = false) async throws -> (TusService, TusUploadRecord) {
        let tus = try await service()
        var metadata = ["filename": "song.mp3"]
        if overwrite { metadata["overwrite"] = "true" }
        let destinations = Destinations(configuration: tus.configuration, categories: [:])
        var record = try await tus.create(length: Int64(bytes.utf8.count), metadata: metadata, concat: nil,
                                          destinations: destinations)
        try Data(bytes.utf8).write(to: URL(fileURLWithPath: TusService.dataPath(record)))
        record.offset = Int64(bytes.utf8.count)
        try await store.tus.saveTusUpload(record)
        return (tus, record)
    }

    func files() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: root + "/uploads").filter { ![".tus", ".pending"].contains($0) }.sorted() }

    func contents(_ name: String) throws -> String { try String(contentsOfFile: root + "/uploads/" + name, encoding: .utf8) }

    /// The empty PATCH a client sends again after losing the answer to its last one.
    func retriedPatch(_ tus: TusService, _ record: TusUploadRecord) async throws -> TusUploadRecord {
        let lease = await tus.acquire(record.id, cancel: {})
        defer { Task { await tus.release(record.id, lease) } }
        let writer = try await tus.openWriter(record.id, lease: lease, offset: record.offset, uploadLength: nil,
                                              checksum: nil, contentLength: 0)
        return try await tus.closeWriter(writer)
    }

    /// Killed after the second name was made, before the record: the retried PATCH takes that name again.
    func testKilledBetweenLinkAndRecord() async throws {
        let (_, record) = try await received("first take")
        XCTAssertEqual(link(TusService.dataPath(record), root + "/uploads/song.mp3"), 0)
        let tus = try await service()  // the next start
        let done = try await retriedPatch(tus, record)
        XCTAssertEqual(done.resultPath, root + "/uploads/song.mp3")
        XCTAssertEqual(try files(), ["song.mp3"], "no second copy, no data file left")
        XCTAssertEqual(try contents("song.mp3"), "first take")
    }

    /// Killed after the record, before the data file's name went: the next start removes it, the file stays.
    func testKilledBetweenRecordAndUnlink() async throws {
        var (_, record) = try await received("second take")
        XCTAssertEqual(link(TusService.dataPath(record), root + "/uploads/song.mp3"), 0)
        record.resultPath = root + "/uploads/song.mp3"
        try await store.tus.saveTusUpload(record)
        _ = try await service()
        XCTAssertEqual(try files(), ["song.mp3"])
        XCTAssertEqual(try contents("song.mp3"), "second take")
    }

    /// With overwrite, killed after the record, before the rename: the next start puts the data over the old file.
    func testOverwriteKilledBetweenRecordAndRename() async throws {
        try Data("old".utf8).write(to: URL(fileURLWithPath: root + "/uploads/song.mp3"))
        var (_, record) = try await received("new take", overwrite: true)
        record.resultPath = root + "/uploads/song.mp3"
        try await store.tus.saveTusUpload(record)
        _ = try await service()
        XCTAssertEqual(try files(), ["song.mp3"])
        XCTAssertEqual(try contents("song.mp3"), "new take")
    }

    /// Without a crash: one name per upload, numbered beside a file already there.
    func testLandsBesideAnExistingFile() async throws {
        try Data("old".utf8).write(to: URL(fileURLWithPath: root + "/uploads/song.mp3"))
        let (tus, record) = try await received("a take")
        let done = try await retriedPatch(tus, record)
        XCTAssertEqual(done.resultPath, root + "/uploads/song (1).mp3")
        XCTAssertEqual(try files(), ["song (1).mp3", "song.mp3"])
        XCTAssertEqual(try contents("song (1).mp3"), "a take")
    }
}
