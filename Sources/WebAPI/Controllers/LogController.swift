import HTTPKit
import QBTCore

/// `/api/v2/log/*`: the execution log with its type filters, and the peer log (bans, blocked peers).
public struct LogController: APIController {
    public let scope = "log"
    let log: EventLog

    public init(log: EventLog) { self.log = log }

    public var actions: [String: APIAction] {
        [
            "main": .get { p, _ in
                var kinds: Set<EventLog.Kind> = []
                if p.bool("normal") ?? true { kinds.insert(.normal) }
                if p.bool("info") ?? true { kinds.insert(.info) }
                if p.bool("warning") ?? true { kinds.insert(.warning) }
                if p.bool("critical") ?? true { kinds.insert(.critical) }
                let entries = log.messages(after: p.int("last_known_id") ?? -1, kinds: kinds)
                return .json(.array(entries.map { m in
                    .object(["id": .int(Int64(m.id)), "timestamp": .int(m.timestamp), "type": .int(Int64(m.kind.rawValue)),
                             "message": .string(m.message)])
                }))
            },
            "peers": .get { p, _ in
                let entries = log.peers(after: p.int("last_known_id") ?? -1)
                return .json(.array(entries.map { e in
                    .object(["id": .int(Int64(e.id)), "timestamp": .int(e.timestamp), "ip": .string(e.ip),
                             "blocked": .bool(e.blocked), "reason": .string(e.reason)])
                }))
            },
        ]
    }
}
