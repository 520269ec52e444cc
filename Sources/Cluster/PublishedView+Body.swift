import Foundation
import QBTCore
import Store
import TorrentEngine

extension PublishedView {
    /// What a node publishes of one of its torrents (the catalogue's `torrent_views.body`): its facts without the
    /// .torrent and fast-resume data, which stay with it, and its status. Packed (`PackedEncoder`) behind a byte that
    /// says so and the layout's fingerprint; a body that starts with `{` is the JSON earlier versions published.
    struct Body: Codable {
        var facts: TorrentFacts
        var status: TorrentStatus

        static let packed: UInt8 = 1

        /// The fingerprint of this version's layout: every optional and array of the facts filled, so each field counts.
        static let layout: UInt64 = {
            var record = TorrentRecord(id: "0", name: "", metainfo: Data([0]), magnet: "", savePath: "", category: "")
            record.completedOn = 0
            (record.downloadPath, record.stopCondition, record.comment) = ("", "", "")
            (record.shareLimitAction, record.shareLimitsMode, record.resumeData) = ("", "", Data([0]))
            var facts = TorrentFacts(record: record, tags: [""])
            (facts.trackers, facts.webSeeds, facts.diskHold) = ([""], [""], "")
            facts.fileFault = FileFault(operation: .read, code: 0, message: "")
            return PackedEncoder.layout(of: Body(facts: facts, status: TorrentStatus(id: "0", name: "", savePath: "")))
        }()

        init(facts: TorrentFacts, status: TorrentStatus) {
            self.facts = facts
            self.status = status
        }

        init(_ view: TorrentView) {
            facts = view.facts
            facts.record.metainfo = nil
            facts.record.resumeData = nil
            status = view.status
        }

        func encoded() throws -> Data {
            var bytes: [UInt8] = [Self.packed]
            withUnsafeBytes(of: Self.layout.littleEndian) { bytes.append(contentsOf: $0) }
            try PackedEncoder().encode(self, into: &bytes)
            return Data(bytes)
        }

        init(decoding data: Data) throws {
            if data.first == UInt8(ascii: "{") {
                self = try JSONDecoder().decode(Body.self, from: data)
                return
            }
            let bytes = [UInt8](data)
            guard bytes.count >= 9, bytes[0] == Self.packed else {
                throw PackedError.corrupt("a body of \(bytes.count) bytes in no known form")
            }
            var layout: UInt64 = 0
            for i in 0..<8 { layout |= UInt64(bytes[1 + i]) << UInt64(8 * i) }
            guard layout == Self.layout else {
                throw PackedError.unsupported("another layout (\(String(layout, radix: 16)), this version's is \(String(Self.layout, radix: 16))): run one qbtd version on every node")
            }
            let (body, end) = try PackedDecoder().decode(Body.self, from: bytes, at: 9)
            guard end == bytes.count else { throw PackedError.corrupt("\(bytes.count - end) bytes after the body") }
            self = body
        }
    }
}
