import Foundation
import Prometheus
import QBTCore
import Search
import Streaming
import Uploads

/// What `/metrics` shows, in Prometheus' text format: the request counters and latency histograms the handlers
/// record through swift-metrics, and gauges read at each scrape from the parts that know them (torrents by state,
/// session rates and totals, peers, streams and their readers, uploads, search jobs, the process' memory and files).
final class ServerMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    let service: TorrentService
    let streams: StreamService
    let search: SearchService
    let uploads: ProgressBoard

    init(registry: PrometheusCollectorRegistry, service: TorrentService, streams: StreamService, search: SearchService,
         uploads: ProgressBoard) {
        self.registry = registry
        self.service = service
        self.streams = streams
        self.search = search
        self.uploads = uploads
    }

    /// The whole exposition, gauges refreshed first.
    func render() async -> [UInt8] {
        await collect()
        return registry.emitToBuffer()
    }

    func gauge(_ name: String, _ help: String, _ labels: [(String, String)] = []) -> Gauge {
        labels.isEmpty ? registry.makeGauge(name: name, help: help) : registry.makeGauge(name: name, labels: labels, help: help)
    }

    func collect() async {
        let board = await service.freshBoard()
        var byState = Dictionary(uniqueKeysWithValues: QBTState.allCases.map { ($0.rawValue, 0) })
        var peers = 0, seeds = 0
        for view in board.views {
            byState[view.state.rawValue, default: 0] += 1
            peers += view.status.numPeers
            seeds += view.status.numSeeds
        }
        for (state, count) in byState {
            gauge("qbtd_torrents", "Torrents by qBittorrent state", [("state", state)]).set(Double(count))
        }
        gauge("qbtd_peers", "Peers connected, over every torrent", [("kind", "all")]).set(Double(peers))
        gauge("qbtd_peers", "Peers connected, over every torrent", [("kind", "seeds")]).set(Double(seeds))
        let transfer = await service.session.transfer()
        gauge("qbtd_download_rate_bytes", "Session download rate, bytes per second").set(Double(transfer.downloadSpeed))
        gauge("qbtd_upload_rate_bytes", "Session upload rate, bytes per second").set(Double(transfer.uploadSpeed))
        gauge("qbtd_session_downloaded_bytes", "Bytes downloaded since qbtd started").set(Double(transfer.downloadedSession))
        gauge("qbtd_session_uploaded_bytes", "Bytes uploaded since qbtd started").set(Double(transfer.uploadedSession))
        let (streamCount, readers) = await streams.counts
        gauge("qbtd_streams", "Streams open").set(Double(streamCount))
        gauge("qbtd_stream_readers", "Players reading a stream now").set(Double(readers))
        let inProgress = uploads.all
        gauge("qbtd_uploads_in_progress", "Uploads (multipart and tus) receiving now").set(Double(inProgress.count))
        gauge("qbtd_upload_received_bytes", "Bytes received by uploads since qbtd started").set(Double(uploads.received.total))
        gauge("qbtd_search_jobs_running", "Search jobs running").set(Double(await search.runningJobs))
        gauge("process_resident_memory_bytes", "Resident memory").set(Double(Self.residentMemory()))
        gauge("process_open_fds", "Open file descriptors").set(Double(Self.openFiles()))
    }

    /// VmRSS from /proc/self/statm (pages).
    static func residentMemory() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    static func openFiles() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0 }
}
