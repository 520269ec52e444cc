/// What an API key may reach, chosen when it is made.
///
/// - `full`: everything a logged-in session may do.
/// - `read-only`: every WebAPI action that only reads (the ones qBittorrent lets a client call with GET), and the
///   music library; never an upload, never the list of keys.
/// - `music`: `/music/*` only (the library, its HLS segments, keys, database and WebSocket).
/// - `stream`: what `read-only` reaches, plus `stream/*` (prepare, stop, list): a player picks a torrent and plays it.
/// - `upload`: `/api/v2/uploads` and `/api/v2/tus/*` only.
public enum APIKeyScope: String, CaseIterable, Sendable {
    case full
    case readOnly = "read-only"
    case music
    case stream
    case upload

    /// The areas a request can fall in, as far as a key's scope is concerned.
    public enum Area: Sendable, Equatable {
        /// `/api/v2/<group>/<action>`; `readOnly` when the action only reads.
        case api(group: String, action: String, readOnly: Bool)
        /// `/music/*`: every route there only reads.
        case music
        /// `/api/v2/uploads`, `/api/v2/tus/*`.
        case uploads
    }

    /// Actions that manage keys: a key that is not `full` can neither list nor make them.
    static let keyManagement: Set<String> = ["qbtd/apiKeys", "qbtd/createAPIKey", "qbtd/revokeAPIKey",
                                             "app/rotateAPIKey", "app/deleteAPIKey"]

    public func permits(_ area: Area) -> Bool {
        switch (self, area) {
        case (.full, _): return true
        case (.music, .music), (.upload, .uploads): return true
        case (.readOnly, .music), (.stream, .music): return true
        case (.readOnly, .api(let group, let action, let readOnly)):
            return readOnly && !Self.keyManagement.contains(group + "/" + action)
        case (.stream, .api(let group, let action, let readOnly)):
            return group == "stream" || (readOnly && !Self.keyManagement.contains(group + "/" + action))
        default: return false
        }
    }

    /// What the key reaches, for error messages ("… a read-only key reaches …").
    public var reach: String {
        switch self {
        case .full: "everything"
        case .readOnly: "only actions that read (those qBittorrent allows with GET) and /music"
        case .music: "only /music"
        case .stream: "only actions that read, stream/* and /music"
        case .upload: "only /api/v2/uploads and /api/v2/tus"
        }
    }

    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
