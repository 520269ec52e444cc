import Foundation
import PostgresNIO
import Store

/// The cluster's nodes: each heartbeat rewrites the node's row, stamped by the database's clock (so one node's clock
/// running fast or slow cannot make another look silent).
extension PostgresStore: NodeRegistry {
    public func publish(_ n: NodeRecord) async throws {
        try await writing { sql in
            try await sql.run("""
                INSERT INTO nodes (name, address, started_at, heartbeat_at, torrents, download_rate, upload_rate, save_path,
                                   free_space, download_share, upload_share, want_downloads, want_seeds, lease, stopped,
                                   session_download, session_upload, alltime_download, alltime_upload)
                VALUES (\(n.name), \(n.address), \(n.startedAt), extract(epoch FROM clock_timestamp()), \(n.torrents),
                        \(n.downloadRate), \(n.uploadRate), \(n.savePath), \(n.freeSpace), \(n.runningLimits.download),
                        \(n.runningLimits.upload), \(n.queueDemand.downloads), \(n.queueDemand.seeds), \(n.lease), \(n.stopped),
                        \(n.totals.sessionDownload), \(n.totals.sessionUpload), \(n.totals.allTimeDownload),
                        \(n.totals.allTimeUpload))
                ON CONFLICT (name) DO UPDATE SET address = excluded.address, started_at = excluded.started_at,
                    heartbeat_at = excluded.heartbeat_at, torrents = excluded.torrents,
                    download_rate = excluded.download_rate, upload_rate = excluded.upload_rate,
                    save_path = excluded.save_path, free_space = excluded.free_space,
                    download_share = excluded.download_share, upload_share = excluded.upload_share,
                    want_downloads = excluded.want_downloads, want_seeds = excluded.want_seeds, lease = excluded.lease,
                    stopped = excluded.stopped, session_download = excluded.session_download,
                    session_upload = excluded.session_upload, alltime_download = excluded.alltime_download,
                    alltime_upload = excluded.alltime_upload
                """)
            // Calls nobody will collect: their senders gave up (or stopped) long ago.
            try await sql.run("DELETE FROM commands WHERE created_at < extract(epoch FROM clock_timestamp()) - \(Self.callLifetime * 10)")
        }
    }

    public func nodes() async throws -> [NodeRecord] {
        try await reading { sql in
            try await sql.rows("""
                SELECT name, address, started_at, torrents, download_rate, upload_rate, save_path, free_space, stopped,
                       download_share, upload_share, want_downloads, want_seeds, lease,
                       l.download AS assigned_download, l.upload AS assigned_upload, l.active_downloads, l.active_seeds,
                       l.active_torrents, session_download, session_upload, alltime_download, alltime_upload,
                       floor(extract(epoch FROM clock_timestamp()) - heartbeat_at)::bigint AS silent_for
                FROM nodes LEFT JOIN node_limits l ON l.node = nodes.name ORDER BY name
                """) { row in
                let assignedDownload = try row.get("assigned_download", as: Double?.self)
                let assignedUpload = try row.get("assigned_upload", as: Double?.self)
                return NodeRecord(
                    name: try row.get("name"), address: try row.get("address"), startedAt: try row.get("started_at"),
                    torrents: try row.get("torrents"), downloadRate: try row.get("download_rate"),
                    uploadRate: try row.get("upload_rate"), savePath: try row.get("save_path"),
                    freeSpace: try row.get("free_space"),
                    runningLimits: NodeLimits(download: try row.get("download_share"), upload: try row.get("upload_share")),
                    assignedLimits: try assignedDownload.flatMap { d in
                        try assignedUpload.map {
                            NodeLimits(download: d, upload: $0, activeDownloads: try row.get("active_downloads", as: Int?.self),
                                       activeSeeds: try row.get("active_seeds", as: Int?.self),
                                       activeTorrents: try row.get("active_torrents", as: Int?.self))
                        }
                    },
                    queueDemand: QueueDemand(downloads: try row.get("want_downloads"), seeds: try row.get("want_seeds")),
                    stopped: try row.get("stopped"), silentFor: try row.get("silent_for"), lease: try row.get("lease"),
                    totals: TransferTotals(sessionDownload: try row.get("session_download"),
                                           sessionUpload: try row.get("session_upload"),
                                           allTimeDownload: try row.get("alltime_download"),
                                           allTimeUpload: try row.get("alltime_upload")))
            }
        }
    }

    public func assignLimits(_ limits: [String: NodeLimits]) async throws {
        let nodes = Array(limits.keys)
        try await writing { sql in
            try await sql.run("DELETE FROM node_limits WHERE NOT (node = ANY(\(nodes)))")
            for (node, l) in limits {
                try await sql.run("""
                    INSERT INTO node_limits (node, download, upload, active_downloads, active_seeds, active_torrents)
                    VALUES (\(node), \(l.download), \(l.upload), \(l.activeDownloads), \(l.activeSeeds), \(l.activeTorrents))
                    ON CONFLICT (node) DO UPDATE SET download = excluded.download, upload = excluded.upload,
                        active_downloads = excluded.active_downloads, active_seeds = excluded.active_seeds,
                        active_torrents = excluded.active_torrents
                    """)
            }
            try await sql.run("SELECT pg_notify(\(Self.limitsChannel), \(node))")
        }
    }
}

/// The nodes' torrents for each other's listings: `torrent_views`, and a `NOTIFY qbtd_views` with each publication.
extension PostgresStore {
    static let viewsChannel = "qbtd_views"
    /// `pg_advisory_xact_lock`'s key for publishing views ("qbtv").
    static let viewsLockKey: Int64 = 0x7162_7476
    static let labelsChannel = "qbtd_labels"
    static let preferencesChannel = "qbtd_preferences"
    static let keysChannel = "qbtd_keys"
    static let limitsChannel = "qbtd_limits"

    public func labelChanges() -> AsyncStream<Void> { othersChanges(Self.labelsChannel) }
    public func preferenceChanges() -> AsyncStream<Void> { othersChanges(Self.preferencesChannel) }
    public func keyChanges() -> AsyncStream<Void> { othersChanges(Self.keysChannel) }
    public func limitChanges() -> AsyncStream<Void> { othersChanges(Self.limitsChannel) }

    /// Wakes for each notification on `channel` another node sent (and after a lost connection).
    func othersChanges(_ channel: String) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let relay = Task { [node] in
            for await sender in notifications(channel) where sender != node { continuation.yield() }
            continuation.finish()
        }
        continuation.onTermination = { _ in relay.cancel() }
        return stream
    }

    public func publishViews(_ changed: [(id: String, body: Data)], removed: [String]) async throws {
        guard !changed.isEmpty || !removed.isEmpty else { return }
        try await writing { sql in
            // One publisher at a time, so that the sequence's order is the order of the commits: a reader that has
            // seen a number has seen every smaller one (without it, a later number could commit first and the
            // reader skip past the earlier one for good).
            try await sql.run("SELECT pg_advisory_xact_lock(\(Self.viewsLockKey))")
            for (id, body) in changed {
                try await sql.run("""
                    INSERT INTO torrent_views (id, node, seq, body) VALUES (\(id), \(node), nextval('torrent_views_seq'), \(body))
                    ON CONFLICT (id) DO UPDATE SET node = excluded.node, seq = excluded.seq, body = excluded.body
                    """)
            }
            if !removed.isEmpty {
                try await sql.run("""
                    UPDATE torrent_views SET body = NULL, seq = nextval('torrent_views_seq')
                    WHERE id = ANY(\(removed)) AND node = \(node)
                    """)
            }
            try await sql.run("SELECT pg_notify(\(Self.viewsChannel), \(node))")
        }
    }

    public func views(after seq: Int64, limit: Int) async throws -> [PublishedView] {
        try await reading { sql in
            try await sql.rows("""
                SELECT id, node, seq, body FROM torrent_views WHERE seq > \(seq) AND node <> \(node) ORDER BY seq LIMIT \(limit)
                """) {
                PublishedView(id: try $0.get("id"), node: try $0.get("node"), seq: try $0.get("seq"), body: try $0.get("body"))
            }
        }
    }

    public func viewPublications() -> AsyncStream<Void> { othersChanges(Self.viewsChannel) }

    /// The payloads of `NOTIFY channel`, and "" once listening again after a lost connection (`PostgresListener`), so
    /// that the reader catches up on what it missed.
    func notifications(_ channel: String) -> AsyncStream<String> { listener.subscribe(channel) }

    /// Every channel the nodes notify on.
    static let channels = [viewsChannel, labelsChannel, preferencesChannel, keysChannel, limitsChannel, commandsChannel,
                           answersChannel, sessionsChannel, movesChannel]
}

/// Calls for a torrent another node runs (`commands`): `NOTIFY qbtd_commands` names the node a call is for,
/// `NOTIFY qbtd_answers` the call answered.
extension PostgresStore {
    static let commandsChannel = "qbtd_commands"
    /// Seconds a call may wait to be taken (its sender gave up long before: `CommandRelay.timeout`); older ones are
    /// never run, and deleted by the heartbeats.
    static let callLifetime = 60.0
    static let answersChannel = "qbtd_answers"

    public func sendCommand(to target: String, _ request: Data) async throws -> Int64 {
        try await writing { sql in
            let id = try await sql.rows("""
                INSERT INTO commands (target, sender, request) VALUES (\(target), \(node), \(request)) RETURNING id
                """) { try $0.get("id", as: Int64.self) }[0]
            try await sql.run("SELECT pg_notify(\(Self.commandsChannel), \(target))")
            return id
        }
    }

    public func takeCommands(limit: Int) async throws -> [(id: Int64, request: Data)] {
        try await writing { sql in
            try await sql.rows("""
                UPDATE commands SET taken = true WHERE id IN (
                    SELECT id FROM commands
                    WHERE target = \(node) AND NOT taken AND created_at > extract(epoch FROM clock_timestamp()) - \(Self.callLifetime)
                    ORDER BY id LIMIT \(limit) FOR UPDATE SKIP LOCKED)
                RETURNING id, request
                """) { (try $0.get("id", as: Int64.self), try $0.get("request", as: Data.self)) }
        }
    }

    public func answerCommand(_ id: Int64, _ answer: Data) async throws {
        try await writing { sql in
            try await sql.run("UPDATE commands SET answer = \(answer) WHERE id = \(id)")
            try await sql.run("""
                SELECT pg_notify(\(Self.answersChannel), sender || ':' || id::text) FROM commands WHERE id = \(id)
                """)
        }
    }

    public func collectAnswer(_ id: Int64) async throws -> CommandOutcome {
        try await writing { sql in
            let rows = try await sql.rows("DELETE FROM commands WHERE id = \(id) AND (answer IS NOT NULL OR NOT taken) RETURNING taken, answer") {
                (try $0.get("taken", as: Bool.self), try $0.get("answer", as: Data?.self))
            }
            guard let (taken, answer) = rows.first else { return .unanswered }
            if let answer { return .answered(answer) }
            return taken ? .unanswered : .withdrawn
        }
    }

    public func commandNotifications() -> AsyncStream<String> { notifications(Self.commandsChannel) }
    public func answerNotifications() -> AsyncStream<String> { notifications(Self.answersChannel) }

}
