import Store
import TorrentEngine

/// A torrent's peers and pieces (`torrents/pieceStates`, `addPeers`, `transfer/banPeers`, SSL parameters): the facade
/// the HTTP layer calls.
public struct TorrentSwarm: Sendable {
    let service: TorrentService

    public func pieceAvailability(_ id: TorrentID) async throws -> [Int] { try await service.pieceAvailability(id) }

    /// Connects each torrent to the given peers; returns how many were handed to the engine per torrent.
    public func addPeers(_ ids: [TorrentID],
                         peers: [(host: String, port: Int)]) async -> [TorrentID: (added: Int, failed: Int)] {
        await service.addPeers(ids, peers: peers)
    }

    public func pieceStates(_ id: TorrentID) async throws -> [PieceState] { try await service.pieceStates(id) }

    public func pieceHashes(_ id: TorrentID) async throws -> [String] { try await service.pieceHashes(id) }

    public func peers(_ id: TorrentID) async throws -> [PeerEntry] { try await service.peers(id) }

    public func sslParameters(_ id: TorrentID) async throws -> SSLParameters? { try await service.sslParameters(id) }

    /// Stored first, then handed to the engine (it matters only to SSL torrents); `false` when the
    /// certificate or key does not parse or the DH parameters are missing.
    public func setSSLParameters(_ id: TorrentID, _ p: SSLParameters) async throws -> Bool {
        try await service.setSSLParameters(id, p)
    }

    /// The banned addresses: qBittorrent keeps them in its settings (`banned_IPs`, one per line).
    public var bannedIPs: [String] { service.bannedIPs }

    public func banPeers(_ peers: [String]) async -> [String] { await service.banPeers(peers) }
}

extension TorrentService {
    public nonisolated var swarm: TorrentSwarm { TorrentSwarm(service: self) }
}
