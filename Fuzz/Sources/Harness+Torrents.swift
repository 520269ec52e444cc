import QBTCore
import TorrentEngine

extension Harness {
    /// Magnet links and bare info-hashes, as `torrents/add` and `stream/prepare` take them.
    static let magnet = Harness(name: "magnet", maxLength: 2048) { input in
        let text = input.text
        if let magnet = TorrentFetcher.magnet(forBareHash: text) { check(magnet.hasPrefix("magnet:?xt=urn:bt"), "bad magnet \(magnet)") }
        guard let parsed = try? ParsedTorrent(.magnet(text)) else { return }
        let summary = parsed.summary
        check(summary.infoHashV1.isEmpty || summary.infoHashV1.count == 40, "v1 hash \(summary.infoHashV1)")
        check(summary.infoHashV2.isEmpty || summary.infoHashV2.count == 64, "v2 hash \(summary.infoHashV2)")
    }

    /// .torrent files, inspected as `torrents/add` and 5.2's metadata routes read them.
    static let metainfo = Harness(name: "metainfo", maxLength: 16384) { input in
        guard let parsed = try? ParsedTorrent(.metainfo(Array(input))) else { return }
        let summary = parsed.summary
        check(summary.pieceCount >= 0 && summary.pieceLength >= 0, "negative piece geometry")
        check(summary.files.allSatisfy { $0.length >= 0 }, "a file of negative length")
    }
}
