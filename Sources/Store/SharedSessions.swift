/// A cluster's WebUI sessions, shared by its nodes so that a login on one opens every one (`PostgresStore`). Only a
/// digest of each session's id is kept (`Digest.sha256Hex`): what the database holds cannot be used as a cookie.
public protocol SharedSessions: Sendable {
    /// A login's new session.
    func openSession(_ digest: String) async throws
    /// Whether the session is live (seen on any node within `timeout` seconds; 0: sessions never expire), and if so
    /// seen now.
    func touchSession(_ digest: String, timeout: Int64) async throws -> Bool
    /// A logout: the session ends on every node (they are woken).
    func closeSession(_ digest: String) async throws
    /// The digests of the sessions other nodes closed, as they close them ("" after a lost connection: any may have).
    func sessionClosures() -> AsyncStream<String>
}
