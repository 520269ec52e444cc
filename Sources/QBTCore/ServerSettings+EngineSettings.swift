import Foundation
import TorrentEngine

/// The preferences turned into libtorrent's settings (`PreferenceEntry.Applier.engine`, `.queue`, `.networkBinding`).
extension ServerSettings {
    /// What the engine runs with: `engineSettings()` with this node's part of a cluster's global limits (rates at
    /// least 1 KiB/s, as 0 would be unlimited; the queue's numbers where they are limited).
    public nonisolated func appliedEngineSettings() -> EngineSettings {
        var s = engineSettings()
        let part = clusterLimits
        if s.downloadRateLimit > 0 { s.downloadRateLimit = max(1024, Int(Double(s.downloadRateLimit) * part.download)) }
        if s.uploadRateLimit > 0 { s.uploadRateLimit = max(1024, Int(Double(s.uploadRateLimit) * part.upload)) }
        if s.activeDownloads >= 0, let slots = part.activeDownloads, slots >= 0 { s.activeDownloads = slots }
        if s.activeSeeds >= 0, let slots = part.activeSeeds, slots >= 0 { s.activeSeeds = slots }
        if s.activeLimit >= 0, let slots = part.activeTorrents, slots >= 0 { s.activeLimit = slots }
        return s
    }

    /// Everything the preferences say about the session, then the command line's overrides.
    public nonisolated func engineSettings() -> EngineSettings {
        let p = current
        var s = EngineSettings()
        s.dht = p[\.dht]
        s.lsd = p[\.lsd]
        s.pex = p[\.pex]
        s.upnp = p[\.upnp]
        s.natpmp = p[\.upnp]
        // qBittorrent's bittorrent_protocol: 0 = TCP and uTP, 1 = TCP, 2 = uTP.
        let protocolChoice = p[\.bittorrentProtocol]
        s.utp = protocolChoice != 1
        s.tcp = protocolChoice != 2
        let down = p.alternativeSpeed ? p[\.altDLLimit] : p[\.dlLimit]
        let up = p.alternativeSpeed ? p[\.altUpLimit] : p[\.upLimit]
        s.downloadRateLimit = max(0, down)
        s.uploadRateLimit = max(0, up)
        s.connectionsLimit = p[\.maxConnec]
        s.unchokeSlots = p[\.maxUploads]
        if p[\.queueingEnabled] {
            s.activeDownloads = p[\.maxActiveDownloads]
            s.activeSeeds = p[\.maxActiveUploads]
            s.activeLimit = p[\.maxActiveTorrents]
        } else {
            s.activeDownloads = -1
            s.activeSeeds = -1
            s.activeLimit = -1
        }
        s.activeChecking = max(1, p[\.maxActiveCheckingTorrents])
        s.dontCountSlowTorrents = p[\.dontCountSlowTorrents]
        s.encryption = p[\.encryption]
        s.anonymousMode = p[\.anonymousMode]
        s.rateLimitUTP = p[\.limitUTPRate]
        s.rateLimitIPOverhead = p[\.limitTCPOverhead]
        s.rateLimitLAN = p[\.limitLANPeers]
        var port = p[\.listenPort]
        if (1...65535).contains(port) { s.listenInterfaces = "0.0.0.0:\(port),[::]:\(port)" } else { port = 6881 }
        if let peerListen = overrides.peerListen {
            s.listenInterfaces = Self.listenInterfaces(peerListen)
            port = peerListen.split(separator: ":").last.flatMap { Int($0) } ?? port
        }
        // The interface binding narrows whatever the listen address was to the interface (the port is kept).
        if let binding = Self.networkBinding(p, port: port) {
            s.listenInterfaces = binding.listenInterfaces
            s.outgoingInterfaces = binding.outgoingInterfaces
        }
        s.proxy = Self.proxy(p, for: .bittorrent)
        s.ipFilterTrackers = p[\.ipFilterEnabled] && p[\.ipFilterTrackers]
        s.advanced = Self.advancedSettings(p)
        s.dhtBootstrapNodes = p[\.dhtBootstrapNodes]
        if !overrides.discovery { s.disableDiscovery() }
        if !overrides.utp { s.utp = false; s.tcp = true }
        return s
    }

    /// qBittorrent's Advanced › libtorrent preferences, in its units (`EngineSettings.Advanced.pack` converts them).
    static func advancedSettings(_ p: PreferenceValues) -> EngineSettings.Advanced {
        var a = EngineSettings.Advanced()
        a.asyncIOThreads = p[\.asyncIOThreads]
        a.hashingThreads = p[\.hashingThreads]
        a.filePoolSize = p[\.filePoolSize]
        a.checkingMemoryMiB = p[\.checkingMemoryUse]
        a.diskQueueSize = p[\.diskQueueSize]
        a.diskIOReadMode = p[\.diskIOReadMode]
        a.diskIOWriteMode = p[\.diskIOWriteMode]
        a.pieceExtentAffinity = p[\.enablePieceExtentAffinity]
        a.uploadSuggestions = p[\.enableUploadSuggestions]
        a.sendBufferWatermarkKiB = p[\.sendBufferWatermark]
        a.sendBufferLowWatermarkKiB = p[\.sendBufferLowWatermark]
        a.sendBufferWatermarkFactor = p[\.sendBufferWatermarkFactor]
        a.connectionSpeed = p[\.connectionSpeed]
        a.socketSendBufferSize = p[\.socketSendBufferSize]
        a.socketReceiveBufferSize = p[\.socketReceiveBufferSize]
        a.socketBacklogSize = p[\.socketBacklogSize]
        a.outgoingPortsMin = p[\.outgoingPortsMin]
        a.outgoingPortsMax = p[\.outgoingPortsMax]
        a.upnpLeaseDuration = p[\.upnpLeaseDuration]
        a.peerToS = p[\.peerToS]
        a.utpMixedMode = p[\.utpTCPMixedMode]
        a.idnSupport = p[\.idnSupportEnabled]
        a.multipleConnectionsPerIP = p[\.enableMultiConnectionsFromSameIP]
        a.maxOutRequestQueue = p[\.maxOutstandingBlockRequests]
        a.seedingOutgoingConnections = p[\.seedingOutgoingConnections]
        a.validateHTTPSTrackerCertificate = p[\.validateHTTPSTrackerCertificate]
        a.ssrfMitigation = p[\.ssrfMitigation]
        a.blockPeersOnPrivilegedPorts = p[\.blockPeersOnPrivilegedPorts]
        a.uploadSlotsBehavior = p[\.uploadSlotsBehavior]
        a.uploadChokingAlgorithm = p[\.uploadChokingAlgorithm]
        a.announceToAllTrackers = p[\.announceToAllTrackers]
        a.announceToAllTiers = p[\.announceToAllTiers]
        a.announceIP = address(p[\.announceIP])
        a.maxConcurrentHTTPAnnounces = p[\.maxConcurrentHTTPAnnounces]
        a.stopTrackerTimeout = p[\.stopTrackerTimeout]
        a.peerTurnover = p[\.peerTurnover]
        a.peerTurnoverCutoff = p[\.peerTurnoverCutoff]
        a.peerTurnoverInterval = p[\.peerTurnoverInterval]
        a.requestQueueSize = p[\.requestQueueSize]
        a.hostnameCacheTTL = p[\.hostnameCacheTTL]
        a.slowTorrentDownloadRate = p[\.slowTorrentDLRateThreshold]
        a.slowTorrentUploadRate = p[\.slowTorrentULRateThreshold]
        a.slowTorrentInactiveTimer = p[\.slowTorrentInactiveTimer]
        return a
    }

    /// qBittorrent keeps `announce_ip` only when it reads as an address; anything else is "".
    static func address(_ text: String) -> String {
        let t = text.trimmingCharacters(in: .whitespaces)
        return IPv6(t) != nil || IPv6.v4(t) != nil ? t : ""
    }

    /// The interface binding, when `current_network_interface` or `current_interface_address` is set.
    public nonisolated func networkBinding(port: Int = 0) -> NetworkBinding? { Self.networkBinding(current, port: port) }

    static func networkBinding(_ p: PreferenceValues, port: Int) -> NetworkBinding? {
        let name = p[\.currentNetworkInterface], address = p[\.currentInterfaceAddress]
        guard !name.isEmpty || !address.isEmpty else { return nil }
        return NetworkBinding.make(interface: name, address: address, port: port, interfaces: NetworkInterfaces.all())
    }

    /// `HOST:PORT` to libtorrent's form; `0.0.0.0` also opens `[::]`.
    static func listenInterfaces(_ value: String) -> String {
        if value.hasPrefix("0.0.0.0:") { return value + ",[::]:" + value.dropFirst("0.0.0.0:".count) }
        return value
    }
}
