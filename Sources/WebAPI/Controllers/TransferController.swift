import HTTPKit
import QBTCore

/// `/api/v2/transfer/*`: global speeds and totals, the two global limits and the alternative-speed mode,
/// and peer bans.
public struct TransferController: APIController {
    public let scope = "transfer"
    let service: TorrentService
    let settings: ServerSettings
    let identity: Identity

    public init(service: TorrentService, settings: ServerSettings, identity: Identity) {
        self.service = service
        self.settings = settings
        self.identity = identity
    }

    public var actions: [String: APIAction] {
        [
            "info": .get { _, _ in
                let t = await service.session.clusterTransfer()
                var o: [String: JSONValue] = [
                    "dl_info_speed": .int(Int64(t.downloadSpeed)), "dl_info_data": .int(t.downloadedSession),
                    "up_info_speed": .int(Int64(t.uploadSpeed)), "up_info_data": .int(t.uploadedSession),
                    "dl_rate_limit": .int(Int64(t.downloadLimit)), "up_rate_limit": .int(Int64(t.uploadLimit)),
                    "dht_nodes": .int(t.counters.dhtNodes), "connection_status": .string(t.connectionStatus),
                ]
                if identity.profile != .v4_6 {
                    o["last_external_address_v4"] = .string("")
                    o["last_external_address_v6"] = .string("")
                }
                return .json(.object(o))
            },
            "speedLimitsMode": .get { _, _ in .text(settings.alternativeSpeed ? "1" : "0") },
            "toggleSpeedLimitsMode": .post { _, _ in
                try await service.session.setAlternativeSpeed(!settings.alternativeSpeed)
                return .empty
            },
            "setSpeedLimitsMode": .post { p, _ in
                try p.require("mode")
                guard let mode = p.int("mode") else { throw QBitError.badParams() }
                try await service.session.setAlternativeSpeed(mode != 0)
                return .empty
            },
            "downloadLimit": .get { _, _ in .text(String(service.session.globalLimits().download)) },
            "uploadLimit": .get { _, _ in .text(String(service.session.globalLimits().upload)) },
            "setDownloadLimit": .post { p, _ in
                try p.require("limit")
                guard let limit = p.int("limit") else { throw QBitError.badParams() }
                try await service.session.setGlobalLimit(download: limit)
                return .empty
            },
            "setUploadLimit": .post { p, _ in
                try p.require("limit")
                guard let limit = p.int("limit") else { throw QBitError.badParams() }
                try await service.session.setGlobalLimit(upload: limit)
                return .empty
            },
            // 5.3: the four global limits at once, in bytes/s (0: unlimited); setting needs all four.
            "getSpeedLimits": .get { _, _ in
                let limits = service.session.speedLimits()
                return .json(.object(["up_limit": .int(Int64(limits.upload)), "dl_limit": .int(Int64(limits.download)),
                                      "alt_up_limit": .int(Int64(limits.alternativeUpload)),
                                      "alt_dl_limit": .int(Int64(limits.alternativeDownload))]))
            }.since(.v5_3),
            "setSpeedLimits": .post { p, _ in
                try p.require("up_limit", "dl_limit", "alt_up_limit", "alt_dl_limit")
                // Qt's toInt: not a number is 0.
                let values = ["up_limit", "dl_limit", "alt_up_limit", "alt_dl_limit"].map { p.int($0) ?? 0 }
                try await service.session.setSpeedLimits(.init(upload: values[0], download: values[1],
                                                                alternativeUpload: values[2], alternativeDownload: values[3]))
                return .done
            }.since(.v5_3),
            "pauseSession": .post { _, _ in await service.session.setPaused(true); return .done }.since(.v5_3),
            "resumeSession": .post { _, _ in await service.session.setPaused(false); return .done }.since(.v5_3),
            "banPeers": .post { p, _ in
                let peers = try p.required("peers").split(separator: "|").map(String.init)
                await service.swarm.banPeers(peers)
                return .empty
            },
        ]
    }
}
