import CLibtorrent
import Foundation

/// The C marshalling for calls that hand data back through callbacks. These run on the engine actor's
/// executor; they live outside it only so the buffers they lend to C stay plainly local.
extension SessionPointer {
    /// Posts an add; the outcome comes with the add alert. Throws only for a source that does not parse.
    func addAsync(_ request: AddTorrentRequest) throws -> TorrentID {
        let parsed = try request.resumeData == nil ? (request.parsed ?? ParsedTorrent(request.source)) : request.parsed
        var error: UnsafeMutablePointer<CChar>?
        let torrentBytes: [UInt8]
        let magnet: String?
        switch request.source {
        case .metainfo(let bytes): torrentBytes = bytes; magnet = nil
        case .magnet(let uri): torrentBytes = []; magnet = uri
        }
        let resume = request.resumeData ?? []
        let (result, id) = withIDBuffer { idBuffer in
            torrentBytes.withUnsafeBufferPointer { torrent in
                resume.withUnsafeBufferPointer { resumeBuffer in
                    request.savePath.withCString { savePath in
                        withOptionalCString(magnet) { magnetPointer in
                            var params = qbt_add_params()
                            params.torrent = magnet == nil ? torrent.baseAddress : nil
                            params.torrent_size = magnet == nil ? torrent.count : 0
                            params.magnet = magnetPointer
                            params.resume = resume.isEmpty ? nil : resumeBuffer.baseAddress
                            params.resume_size = resume.count
                            params.save_path = savePath
                            params.stopped = request.stopped
                            params.sequential = request.sequential
                            params.seed_mode = request.skipChecking
                            params.preallocate = request.preallocate
                            params.upload_mode = request.uploadMode
                            params.upload_limit = Int32(clamping: request.uploadLimit)
                            params.download_limit = Int32(clamping: request.downloadLimit)
                            params.parsed = parsed?.handle
                            params.auto_managed = request.autoManaged
                            params.super_seeding = request.superSeeding
                            params.max_connections = Int32(clamping: request.maxConnections)
                            params.max_uploads = Int32(clamping: request.maxUploads)
                            return qbt_add_async(raw, &params, idBuffer, &error)
                        }
                    }
                }
            }
        }
        switch result {
        case QBT_OK: return id
        case QBT_ERR_INVALID: throw EngineError.invalidTorrent(takeCString(error))
        case QBT_ERR_DUPLICATE:
            _ = takeCString(error)
            throw EngineError.duplicate(parsed?.id ?? id)
        default: throw EngineError.failed(takeCString(error))
        }
    }

    func status(_ id: TorrentID) throws -> TorrentStatus {
        let (result, items) = collect(TorrentStatus.self) { ctx in
            qbt_get_status(raw, id, { ctx, s in Collector<TorrentStatus>.from(ctx).items.append(TorrentStatus(s!.pointee)) }, ctx)
        }
        try check(result, id)
        guard let status = items.first else { throw EngineError.notFound(id) }
        return status
    }

    /// Several statuses in one trip to libtorrent's network thread.
    func statuses(_ ids: some Collection<TorrentID>) -> [TorrentStatus] {
        guard !ids.isEmpty else { return [] }
        var cStrings: [UnsafeMutablePointer<CChar>?] = ids.map { strdup($0) }
        defer { cStrings.forEach { free($0) } }
        return cStrings.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) { base in
                collect(TorrentStatus.self) { ctx in
                    qbt_get_status_many(raw, base, buffer.count, { ctx, s in
                        Collector<TorrentStatus>.from(ctx).items.append(TorrentStatus(s!.pointee))
                    }, ctx)
                    return QBT_OK
                }.1
            }
        }
    }

    func files(_ id: TorrentID) throws -> [TorrentFile] {
        let (result, items) = collect(TorrentFile.self) { ctx in
            qbt_get_files(raw, id, { ctx, f in Collector<TorrentFile>.from(ctx).items.append(TorrentFile(f!.pointee)) }, ctx)
        }
        try check(result, id)
        return items
    }

    func exportTorrent(_ id: TorrentID) throws -> [UInt8] {
        let (result, items) = collect([UInt8].self) { ctx in
            qbt_export_torrent(raw, id, { ctx, data, size in
                Collector<[UInt8]>.from(ctx).items.append(Array(UnsafeBufferPointer(start: data, count: size)))
            }, ctx)
        }
        if result == QBT_ERR_INVALID { throw EngineError.invalidArgument("torrent \(id) has no metadata yet") }
        try check(result, id)
        return items.first ?? []
    }

    func popEvents() -> [RawEvent] {
        collect(RawEvent.self) { ctx in
            _ = qbt_session_pop_events(raw, { ctx, e in
                if let event = RawEvent(e!.pointee) { Collector<RawEvent>.from(ctx).items.append(event) }
            }, { ctx, s in
                Collector<RawEvent>.from(ctx).items.append(.status(TorrentStatus(s!.pointee)))
            }, ctx)
            return QBT_OK
        }.1
    }
}

/// Runs `body` with a context pointer to a fresh collector, and returns what the callbacks put in it.
func collect<Element>(_: Element.Type, _ body: (UnsafeMutableRawPointer) -> qbt_result) -> (qbt_result, [Element]) {
    let collector = Unmanaged.passRetained(Collector<Element>())
    defer { collector.release() }
    let result = body(collector.toOpaque())
    return (result, collector.takeUnretainedValue().items)
}

func check(_ result: qbt_result, _ id: TorrentID) throws {
    switch result {
    case QBT_OK: return
    case QBT_ERR_NOT_FOUND: throw EngineError.notFound(id)
    case QBT_ERR_INVALID: throw EngineError.invalidArgument("invalid argument for \(id)")
    default: throw EngineError.failed("libtorrent refused the call for \(id)")
    }
}
