/// The qBittorrent release qbtd presents itself as. Issue-level compatibility profiles (4.6, 5.2) extend this;
/// requests in either dialect are accepted whatever it says.
public struct Identity: Sendable, Equatable {
    public var appVersion: String
    public var webAPIVersion: String
    /// 4.x names states `pausedDL`/`pausedUP`; 5.x says `stoppedDL`/`stoppedUP`.
    public var legacyStateNames: Bool

    public static let qBittorrent5_1 = Identity(appVersion: "v5.1.4", webAPIVersion: "2.11.4", legacyStateNames: false)

    public func stateName(_ state: QBTState) -> String { legacyStateNames ? state.legacyName : state.rawValue }
}
