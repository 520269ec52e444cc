import HTTPKit
import QBTCore

/// `use_https` and the two PEM paths (`PreferenceEntry.Applier.webServer`).
extension WebHTTPS {
    /// Checks a change before it is stored and switches new connections to it; a change it refuses is left out, so
    /// `app/preferences` goes on saying what is served. A value of the wrong type is no change, as `ServerSettings`
    /// will not store it either.
    @discardableResult
    nonisolated func followPreferences(_ settings: ServerSettings) -> PreferenceSubscription {
        settings.beforeChange(.webServer) { [self] request in
            let taken = await apply(HTTPSRequest(enabled: request.proposed(\.useHTTPS),
                                                 certificate: request.proposed(\.webUIHTTPSCertPath),
                                                 key: request.proposed(\.webUIHTTPSKeyPath)))
            if !taken { request.leaveOut(\.useHTTPS, \.webUIHTTPSCertPath, \.webUIHTTPSKeyPath) }
        }
    }
}
