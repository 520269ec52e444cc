import Foundation
import Logging
import QBTCore
import TorrentEngine

/// Streams opened, stopped and listed: a torrent (or a file of one) prepared for reading, given a token.
extension StreamService {
    public func prepare(_ source: Source, fileIndex: Int?, title: String?, trackers: [String],
                        peers: [(host: String, port: Int)] = [], networkMbps: Double?) async throws -> Stream {
        let id: TorrentID
        var owned = false
        switch source {
        case .hash(let hash):
            id = hash.lowercased()
            guard await torrents.exists(id) || streams.values.contains(where: { $0.torrentID == id }) else {
                throw Failure.invalidSource("no torrent with hash \(hash)")
            }
            // A stream-cache torrent stays the cache's, whoever names it next.
            owned = streams.values.first { $0.torrentID == id }?.owned ?? false
        case .magnet, .metainfo:
            var request = AddTorrentRequest(source: .magnet(""), savePath: "")
            switch source {
            case .magnet(let uri):
                let extra = trackers.map { "&tr=" + (($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)) ?? $0) }
                request.source = .magnet(uri + extra.joined())
            case .metainfo(let bytes):
                request.source = .metainfo(bytes)
                // Added stopped: its check ends at once (no files yet), and the `resume` after the peers are
                // named connects them on the spot instead of at the session's next tick (up to 500 ms).
                request.stopped = true
            case .hash: break
            }
            do { id = try ParsedTorrent(request.source).id } catch { throw Failure.invalidSource("\(error)") }
            if await torrents.exists(id) || streams.values.contains(where: { $0.torrentID == id }) {
                owned = streams.values.first { $0.torrentID == id }?.owned ?? false
            } else {
                request.savePath = configuration.cacheDirectory + "/" + id
                try FileManager.default.createDirectory(atPath: request.savePath, withIntermediateDirectories: true)
                do { _ = try await engine.add(request) } catch { throw Failure.invalidSource("\(error)") }
                owned = true
            }
        }
        // A stream-cache torrent that no stream ends up using goes again (a bad fileIndex, no metadata in time).
        let fresh = owned && !streams.values.contains { $0.torrentID == id }
        do {
            return try await openStream(id, owned: owned, fileIndex: fileIndex, title: title, peers: peers, networkMbps: networkMbps)
        } catch {
            // Unless another prepare opened a stream on it meanwhile.
            if !streams.values.contains(where: { $0.torrentID == id }) {
                try? await engine.setStreaming(id, false)
                if fresh { await release(id, keep: false) }
                dropPieceMapIfUnused(id)
            }
            throw error
        }
    }

    func openStream(_ id: TorrentID, owned: Bool, fileIndex: Int?, title: String?, peers: [(host: String, port: Int)],
                      networkMbps: Double?) async throws -> Stream {
        opening[id, default: 0] += 1
        defer {
            opening[id, default: 1] -= 1
            if opening[id] == 0 { opening[id] = nil }
        }
        let status = try await waitForMetadata(id)
        // The torrent keeps its seeds while it streams: a stream-cache torrent can want an evicted piece again at the
        // next seek.
        try? await engine.setStreaming(id, true)
        if !peers.isEmpty {
            // libtorrent drops peers named while it checks a new torrent: name them once it is done (at most 1 s).
            _ = await waitForStatus(id, timeout: .seconds(1)) { $0.state != .checkingFiles && $0.state != .checkingResumeData }
            for peer in peers { try? await engine.connectPeer(id, host: peer.host, port: peer.port) }
        }
        let files = try await engine.files(id)
        guard !files.isEmpty else { throw Failure.noFiles }
        let index = try fileIndex.map { i -> Int in
            guard files.indices.contains(i) else { throw Failure.fileIndex(i, count: files.count) }
            return i
        } ?? Self.defaultFile(files)
        let file = files[index]
        if owned {
            // Only the streamed file (and the other streams' files) download, in the background at low priority
            // while they fit below the level where eviction starts; larger ones only where the scheduler says (their
            // pieces at 0, not the file: libtorrent keeps a skipped file's pieces in a part file, out of readers' way).
            let wanted = Set(streams.values.filter { $0.torrentID == id }.map(\.file.index) + [file.index])
            for f in files {
                try? await engine.setFilePriority(id, file: f.index, priority: wanted.contains(f.index) ? 1 : 0)
            }
            // Every wanted file's pieces: setting a file's priority reset those of the files already streamed too.
            let streamed = files.filter { wanted.contains($0.index) }
            if backgroundPriority(streamed) == 0 {
                for f in streamed { try? await engine.setPiecesPriority(id, pieces: Range(f.pieceRange), priority: 0) }
            }
            try? await engine.resume(id)  // which also lets a torrent a full disk stopped try again
            writeFaults[id] = nil
        }
        let total = files.map { $0.offset + $0.size }.max() ?? 0
        let pieceCount = max(status.numPieces, Int((total + Int64(status.pieceLength) - 1) / Int64(max(1, status.pieceLength))))
        // The map is registered now (its events keep it from here on) and filled from the engine once the first
        // pieces are asked for: a trip to libtorrent's thread before them lets it fill the peer's queue with
        // background pieces first (a first byte 100 ms later, one prepare in three).
        let (map, fresh) = pieceMap(id, count: pieceCount)
        var token = [UInt8](repeating: 0, count: 16)
        for i in token.indices { token[i] = UInt8.random(in: 0...255) }
        let rate = Int((networkMbps ?? 20) * 125_000)
        let stream = Stream(id: token.map { String(format: "%02x", $0) }.joined(), torrentID: id, fileIndex: index, file: file,
                            savePath: status.savePath, pieceLength: status.pieceLength,
                            title: title.flatMap { $0.isEmpty ? nil : $0 } ?? (file.path as NSString).lastPathComponent,
                            mimeType: MediaType.of(file.path), owned: owned, networkRate: max(rate, 125_000), have: map)
        streams[stream.id] = stream
        // Container indexes live at the ends (MP4 moov, MKV cues): head and tail first.
        let ends = Set([stream.pieces.lowerBound, stream.pieces.lowerBound + 1, stream.pieces.upperBound - 1, stream.pieces.upperBound]
            .filter(stream.pieces.contains)).sorted()
        // Priority gets them picked as soon as a peer unchokes (a deadline waits for libtorrent's one-second
        // time-critical tick): the first piece alone at the top, so it is requested first. In-place torrents keep
        // their priorities: they get deadlines, in one call.
        if owned {
            for (order, p) in ends.enumerated() { try? await engine.setPiecePriority(id, piece: p, priority: order == 0 ? 7 : 6) }
        } else {
            try? await engine.setPieceDeadlines(id, ends.enumerated().map { (piece: $1, milliseconds: $0 * 50) }, clearingOthers: false)
        }
        if fresh { await refill(id) }
        return stream
    }

    func waitForMetadata(_ id: TorrentID) async throws -> TorrentStatus {
        _ = try engine.status(id)
        guard let status = await waitForStatus(id, timeout: configuration.metadataTimeout, until: { $0.hasMetadata }) else {
            throw Failure.metadataTimeout(Int(configuration.metadataTimeout.components.seconds))
        }
        return status
    }

    /// The torrent's status once `test` holds, re-tested on the torrent's events (the engine publishes the status
    /// before it hands them out); nil after `timeout`.
    func waitForStatus(_ id: TorrentID, timeout: Duration,
                       until test: @escaping @Sendable (TorrentStatus) -> Bool) async -> TorrentStatus? {
        if let status = engine.snapshot.status(id), test(status) { return status }
        let key = UUID()
        return await withCheckedContinuation { continuation in
            statusWaiters[id, default: [:]][key] = (test, continuation)
            Task {
                try? await Task.sleep(for: timeout)
                self.finishWaiting(id, key, nil)
            }
        }
    }

    func finishWaiting(_ id: TorrentID, _ key: UUID, _ status: TorrentStatus?) {
        guard let waiter = statusWaiters[id]?.removeValue(forKey: key) else { return }
        if statusWaiters[id]?.isEmpty == true { statusWaiters[id] = nil }
        waiter.continuation.resume(returning: status)
    }

    /// The largest playable file, else the largest file.
    static func defaultFile(_ files: [TorrentFile]) -> Int {
        let playable = files.indices.filter { MediaType.isPlayable(files[$0].path) }
        let pool = playable.isEmpty ? Array(files.indices) : playable
        return pool.max { files[$0].size < files[$1].size } ?? 0
    }

    public func stream(_ token: String) throws -> Stream {
        guard let stream = streams[token] else { throw Failure.unknownStream }
        return stream
    }

    /// Ends the stream: its readers get a clean end, and a stream-cache torrent no other stream uses goes
    /// (its data too, unless kept because it completed).
    public func stop(_ token: String) async throws {
        guard let stream = streams.removeValue(forKey: token) else { throw Failure.unknownStream }
        if !streams.values.contains(where: { $0.torrentID == stream.torrentID }) {
            try? await engine.setStreaming(stream.torrentID, false)
        }
        for (piece, parked) in waiters[stream.torrentID] ?? [:] {
            for (key, waiter) in parked where waiter.stream == token { resume(stream.torrentID, piece, key, with: .stopped) }
        }
        if stream.owned, !streams.values.contains(where: { $0.torrentID == stream.torrentID }) {
            let complete = (try? engine.status(stream.torrentID).isFinished) ?? false
            await release(stream.torrentID, keep: configuration.keepCompleted && complete)
        } else {
            await reschedule(stream.torrentID)
        }
        dropPieceMapIfUnused(stream.torrentID)
    }

    /// The torrent's piece map, made for its first stream (`fresh`: then the caller fills it with `refill`, one call).
    func pieceMap(_ id: TorrentID, count: Int) -> (map: PieceMap, fresh: Bool) {
        if let map = have[id] { return (map, false) }
        let map = PieceMap(count: count)
        have[id] = map  // from here on its events keep it
        return (map, true)
    }

    /// Sets the pieces the engine says the torrent has (at first, and after a recheck), waking their readers.
    func refill(_ id: TorrentID) async {
        guard have[id] != nil, let states = try? await engine.pieceStates(id), let map = have[id] else { return }
        for piece in map.merge(states) { wakeReaders(id, piece) }
    }

    func dropPieceMapIfUnused(_ id: TorrentID) {
        guard opening[id] == nil, !streams.values.contains(where: { $0.torrentID == id }) else { return }
        have[id] = nil
        peersNoted[id] = nil
    }

    /// Removes a stream-cache torrent; unless kept, its data and folder go (the folder once libtorrent is done).
    func release(_ id: TorrentID, keep: Bool) async {
        scheduled[id] = nil
        if !keep { releasing.insert(id) }
        do { try await engine.remove(id, deleteFiles: !keep) } catch { releasing.remove(id) }
    }

    /// Stops every stream; returns how many there were.
    @discardableResult
    public func stopAll() async -> Int {
        let tokens = streams.keys.sorted()
        for token in tokens { try? await stop(token) }
        return tokens.count
    }

    public struct Report: Sendable {
        public let stream: Stream
        public let position: Int64
        /// Byte ranges of the file on disk, `[first, last]`.
        public let buffered: [[Int64]]
        public let downloadRate: Int
        public let peers: Int
        public let readers: Int
        public let state: String
    }

    /// Streams open and readers reading them now (for metrics).
    public var counts: (streams: Int, readers: Int) { (streams.count, streams.values.reduce(0) { $0 + $1.readers.count }) }

    public func list() async -> [Report] {
        await engine.freshen()
        var out: [Report] = []
        for stream in streams.values.sorted(by: { $0.id < $1.id }) {
            let status = try? engine.status(stream.torrentID)
            var buffered: [[Int64]] = []
            for p in stream.pieces where stream.have.has(p) {
                let first = max(0, Int64(p) * Int64(stream.pieceLength) - stream.file.offset), last = stream.end(of: p) - 1
                if let previous = buffered.last, previous[1] + 1 >= first { buffered[buffered.count - 1][1] = last }
                else { buffered.append([first, last]) }
            }
            out.append(Report(stream: stream, position: stream.readers.values.max() ?? stream.lastPosition, buffered: buffered,
                              downloadRate: status?.downloadRate ?? 0, peers: status?.numPeers ?? 0, readers: stream.readers.count,
                              state: status.map { "\($0.state)\($0.isFinished ? " finished" : "")\($0.paused ? " paused" : "")" } ?? "-"))
        }
        return out
    }
}
