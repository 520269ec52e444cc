import Foundation
import NIOCore
import NIOEmbedded
import XCTest

@testable import FileRegions

final class FileRegionHandlerTests: XCTestCase {
    var channel: EmbeddedChannel!
    var descriptor: Int32 = -1
    var path = ""

    override func setUpWithError() throws {
        channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(FileRegionOutlet.handler(for: channel))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()  // active, as a served connection is
        path = NSTemporaryDirectory() + "file-region-\(UUID().uuidString)"
        try Data(repeating: 7, count: 4096).write(to: URL(fileURLWithPath: path))
        descriptor = open(path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
    }

    override func tearDownWithError() throws {
        close(descriptor)
        unlink(path)
        _ = try? channel.finish(acceptAlreadyClosed: true)
    }

    var outlet: FileRegionOutlet { FileRegionOutlet.of(channel)! }

    func testAMarkerGoesOutAsTheFileRegionItNames() throws {
        let region = try outlet.region(descriptor: descriptor, offset: 100, count: 900)
        XCTAssertEqual(region.marker.readableBytes, 24)
        try channel.writeAndFlush(region.marker).wait()
        guard case .fileRegion(let file)? = try channel.readOutbound(as: IOData.self) else { return XCTFail("no file region") }
        XCTAssertEqual(file.readerIndex, 100)
        XCTAssertEqual(file.endIndex, 1000)
        XCTAssertNoThrow(try region.sent.wait())
        // The outlet's copy of the descriptor is closed once written; the caller's stays open.
        XCTAssertFalse(file.fileHandle.isOpen)
        XCTAssertNotEqual(fcntl(descriptor, F_GETFD), -1)
    }

    func testOtherBytesPassUntouched() throws {
        var lookalike = ByteBuffer(repeating: 0, count: 24)  // a marker's length, not its bytes
        lookalike.setBytes(FileRegionOutlet.magic.map { $0 ^ 1 }, at: 0)
        for buffer in [ByteBuffer(string: "hello"), lookalike] {
            try channel.writeAndFlush(buffer).wait()
            guard case .byteBuffer(let out)? = try channel.readOutbound(as: IOData.self) else { return XCTFail("not bytes") }
            XCTAssertEqual(out, buffer)
        }
    }

    func testAMarkerWithoutItsRegionClosesTheConnectionInsteadOfSendingIt() throws {
        let region = try outlet.region(descriptor: descriptor, offset: 0, count: 10)
        let taken = outlet.take(FileRegionOutlet.markerID(region.marker)!)
        XCTAssertNotNil(taken)
        try? taken?.handle.close()
        taken?.sent.fail(ChannelError.ioOnClosedChannel)
        XCTAssertThrowsError(try channel.writeAndFlush(region.marker).wait())
        XCTAssertNil(try channel.readOutbound(as: IOData.self))
        XCTAssertFalse(channel.isActive)
    }

    func testAFileCutShorterWhileItsRegionIsInFlightClosesTheConnection() throws {
        let region = try outlet.region(descriptor: descriptor, offset: 0, count: 4096)
        channel.write(region.marker, promise: nil)  // not flushed: still in flight
        channel.embeddedEventLoop.advanceTime(by: .seconds(3))
        XCTAssertTrue(channel.isActive, "the file still reaches the region's end")
        XCTAssertEqual(truncate(path, 1000), 0)
        channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        XCTAssertFalse(channel.isActive)
        // A socket channel fails its unsent writes as it closes, and with them `region.sent`; an embedded channel
        // keeps unflushed writes pending, so that half is NIO's and is not checked here.
    }

    func testClosingTheConnectionGivesUpWhatWasNeverWritten() throws {
        let region = try outlet.region(descriptor: descriptor, offset: 0, count: 10)
        let kept = outlet
        _ = try channel.finish(acceptAlreadyClosed: true)
        XCTAssertTrue(Self.failed(region.sent))
        XCTAssertNil(FileRegionOutlet.of(channel))
        XCTAssertThrowsError(try kept.region(descriptor: descriptor, offset: 0, count: 10))
    }

    /// Whether `future` has failed by now (an embedded loop's future that never completes would hang `wait()`).
    static func failed(_ future: EventLoopFuture<Void>) -> Bool {
        final class Seen: @unchecked Sendable { var failed = false }  // an embedded loop runs callbacks in place
        let seen = Seen()
        future.whenFailure { _ in seen.failed = true }
        return seen.failed
    }
}
