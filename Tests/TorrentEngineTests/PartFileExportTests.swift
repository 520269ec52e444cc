import EngineTestSupport
import Foundation
import XCTest

@testable import TorrentEngine

/// A skipped file keeps its share of a piece it has in common with the file before it in libtorrent's part file. When
/// the file is wanted again while that piece is half downloaded, the part file ends short of the piece's slot:
/// libtorrent (2.0.8, and 2.0.11 still) then failed the priority change with "End of file" and stopped the torrent with a file error
/// (a second file of a torrent streamed while the first downloads). qbtd's libtorrent copies what was written and
/// downloads the rest into the file (contrib/libtorrent/partfile-export-eof.patch). Two real sessions on 127.0.0.1.
final class PartFileExportTests: XCTestCase {
    func testAFileWantedAgainWhileThePieceItSharesIsHalfDownloadedKeepsTheTorrentGoing() async throws {
        let dir = try temporaryFolder("partfile")
        defer { try? FileManager.default.removeItem(at: dir) }
        let folder = dir.appendingPathComponent("seed/pair")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // 100 KiB then 200 KiB in 64 KiB pieces, v1 (no pad files): piece 1 is a's end and b's start.
        let a = Data((0..<100 * 1024).map { _ in UInt8.random(in: 0...255) })
        let b = Data((0..<200 * 1024).map { _ in UInt8.random(in: 0...255) })
        try a.write(to: folder.appendingPathComponent("a.bin"))
        try b.write(to: folder.appendingPathComponent("b.bin"))
        var options = TorrentCreationOptions()
        options.format = .v1
        options.pieceSize = 64 * 1024
        let torrent = try TorrentCreator.create(path: folder.path, options: options) { _, _ in true }.torrent

        let seeder = try LibtorrentEngine(settings: LoopbackTransferTests.loopback) { _ in }
        let leecher = try LibtorrentEngine(settings: LoopbackTransferTests.loopback) { _ in }
        do {
            try await transfer(torrent, a: a, b: b, in: dir, from: seeder, to: leecher)
        } catch {
            await leecher.shutdown()
            await seeder.shutdown()
            throw error
        }
        await leecher.shutdown()
        await seeder.shutdown()
    }

    func transfer(_ torrent: [UInt8], a: Data, b: Data, in dir: URL, from seeder: LibtorrentEngine,
                  to leecher: LibtorrentEngine) async throws {
        var seed = AddTorrentRequest(source: .metainfo(torrent), savePath: dir.appendingPathComponent("seed").path)
        seed.skipChecking = true
        let id = try await seeder.add(seed).id
        // A 16 KiB block a second: the part file is seen before the piece's last block comes.
        try await seeder.setLimits(id, upload: 16 * 1024, download: 0)
        let got = dir.appendingPathComponent("got")
        _ = try await leecher.add(AddTorrentRequest(source: .metainfo(torrent), savePath: got.path))
        let files = try await leecher.files(id)
        let bIndex = try XCTUnwrap(files.first { $0.path.hasSuffix("b.bin") }?.index)
        try await leecher.setFilePriority(id, file: bIndex, priority: 0)
        var port = 0
        for _ in 0..<100 where port == 0 {
            port = await seeder.listenPort
            if port == 0 { try await Task.sleep(for: .milliseconds(50)) }
        }
        try await leecher.connectPeer(id, host: "127.0.0.1", port: port)

        // b's first bytes land in the part file (the piece it shares with a), the piece not whole yet.
        var partFile: URL?
        for _ in 0..<1500 where partFile == nil {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: got.path)) ?? []
            if let name = names.first(where: { $0.hasSuffix(".parts") }) {
                let url = got.appendingPathComponent(name)
                let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
                if size > 0 { partFile = url }
            }
            if partFile == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        XCTAssertNotNil(partFile, "b's share of the shared piece never reached the part file")
        let events = await leecher.events()
        try await leecher.setFilePriority(id, file: bIndex, priority: 1)
        try await seeder.setLimits(id, upload: 0, download: 0)

        // Finished with b whole: a finish of a alone (b skipped) can come just before the change and is not it.
        let outcome = try await withTimeout(seconds: 60) { () -> String in
            for await event in events {
                if case .fileError(id, let why) = event { return "file error: \(why)" }
                if case .finished(id) = event,
                   try await leecher.files(id).first(where: { $0.index == bIndex })?.progress == 1 { return "finished" }
            }
            return "no more events"
        }
        XCTAssertEqual(outcome, "finished")
        XCTAssertEqual(try Data(contentsOf: got.appendingPathComponent("pair/a.bin")), a)
        XCTAssertEqual(try Data(contentsOf: got.appendingPathComponent("pair/b.bin")), b)
    }
}
