import XCTest

@testable import Music

final class SegmenterTests: XCTestCase {
    func index(frames: Int, spf: Int32 = 1152, rate: Int = 44100) -> FrameIndex {
        FrameIndex(sampleRate: rate, offsets: (0..<frames).map { Int64($0 * 417) }, sizes: Array(repeating: 417, count: frames),
                   samples: Array(repeating: spf, count: frames))
    }

    func testSegmentsHoldTheFramesThatStartInTheirSixSeconds() {
        let s = HLSSegmenter(index(frames: 1000))  // 1000 × 1152 / 44100 = 26.1 s
        XCTAssertEqual(s.segments.count, 5)
        for (n, segment) in s.segments.enumerated() {
            XCTAssertEqual(segment.startSample / Int64(6 * 44100), Int64(n))
            let lastStart = segment.startSample + segment.sampleCount - 1152
            XCTAssertEqual(lastStart / Int64(6 * 44100), Int64(n))
        }
        XCTAssertEqual(s.segments.map(\.frameCount).reduce(0, +), 1000)
        XCTAssertEqual(s.targetDuration, 6)
    }

    func testExtinfsAddUpAndRoundUnderTheTarget() {
        for frames in [1, 229, 230, 460, 12345] {
            let s = HLSSegmenter(index(frames: frames))
            let text = s.playlist(encrypted: false)
            let durations = text.split(separator: "\n").filter { $0.hasPrefix("#EXTINF:") }
                .map { Double($0.dropFirst(8).dropLast())! }
            XCTAssertEqual(durations.count, s.segments.count)
            let total = Double(frames * 1152) / 44100
            XCTAssertEqual(durations.reduce(0, +), total, accuracy: 0.000001)
            XCTAssertTrue(durations.allSatisfy { Int($0.rounded()) <= s.targetDuration })
            XCTAssertTrue(text.hasPrefix("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:"))
            XCTAssertTrue(text.hasSuffix("#EXT-X-ENDLIST\n"))
        }
        // An exact multiple of 6 s: 6 s at 48 kHz is 250 frames of 1152.
        let exact = HLSSegmenter(index(frames: 500, rate: 48000))
        XCTAssertEqual(exact.segments.map(\.frameCount), [250, 250])
        XCTAssertTrue(exact.playlist(encrypted: false).contains("#EXTINF:6.000000,\nsegments/1.mp3"))
    }

    func testTimestampTag() {
        let tag = HLSSegmenter.timestampTag(startSample: 44100 * 6, sampleRate: 44100)
        XCTAssertEqual(tag.count, 73)
        XCTAssertEqual(Array(tag.prefix(10)), Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 63])
        XCTAssertEqual(Array(tag[10..<14]), Array("PRIV".utf8))
        XCTAssertEqual(Array(tag.suffix(8)), [0, 0, 0, 0, 0, 0x08, 0x3d, 0x60])  // 540000 = 6 s at 90 kHz
    }

    func testEncryptionIsPKCS7WithTheSequenceAsIV() throws {
        let data = [UInt8](repeating: 7, count: 100)
        let sealed = try HLSSegmenter.encrypt(data, key: [UInt8](repeating: 1, count: 16), sequence: 3)
        // `openssl enc -aes-128-cbc -K 0101…01 -iv 00…03` of the same 100 bytes.
        let expected = "9d44fff6bbd08026f2c66ecc760cd67bf53f8503e9ae4e4337cd8c1f00de68f2ef8f49db34d5fcdf2706452d6c72cc68"
            + "23fdc9a5e7d3b71c6c9e5c068d43e8056f6a046820e900fae2a9972e90d1e195334580cf4f3bb76034dbce468fdd2821"
            + "f544f79a06f86aa49768a213f38f9eba"
        XCTAssertEqual(sealed.map { String(format: "%02x", $0) }.joined(), expected)
    }

    func testGenres() {
        XCTAssertEqual(Genres.name("(17)"), "Rock")
        XCTAssertEqual(Genres.name("17"), "Rock")
        XCTAssertEqual(Genres.name("(17)Rock & Roll"), "Rock & Roll")
        XCTAssertEqual(Genres.name("Synthwave"), "Synthwave")
    }
}
