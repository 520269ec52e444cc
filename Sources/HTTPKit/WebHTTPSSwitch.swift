/// The certificate and key files the WebUI serves HTTPS with (PEM, as qBittorrent 4.4+ takes them).
public struct HTTPSFiles: Sendable, Equatable {
    public var certificate: String
    public var key: String
    public init(certificate: String, key: String) {
        self.certificate = certificate
        self.key = key
    }
}

/// What `app/setPreferences` asks of the WebUI's HTTPS: `use_https` and the two paths.
public struct HTTPSRequest: Sendable, Equatable {
    public var enabled: Bool
    public var certificate: String
    public var key: String
    public init(enabled: Bool, certificate: String, key: String) {
        self.enabled = enabled
        self.certificate = certificate
        self.key = key
    }
}

/// Switches the WebUI between HTTP and HTTPS for new connections (the server side lives in QBTServer, which
/// knows TLS; WebAPI only asks).
public protocol WebHTTPSSwitch: Sendable {
    /// The files given with --https-cert/--https-key, which win over the preferences.
    var commandLine: HTTPSFiles? { get }
    /// Takes the change (true), or refuses it with a log line and keeps serving as before (false).
    func apply(_ request: HTTPSRequest) async -> Bool
}
