import QBTCore

/// The WebUI's security preferences and its alternative folder (`PreferenceEntry.Applier.webSecurity`, `.webUIFiles`).
extension WebGate {
    /// Rebuilds the policy, and the sessions' part of it, whenever a request sets one of its keys: even to the value
    /// it had, because qBittorrent checks the custom header lines on every apply and reports the bad ones each time.
    @discardableResult
    public func followPreferences(_ settings: ServerSettings, sessions: SessionManager, log: EventLog) -> PreferenceSubscription {
        settings.onChange(.webSecurity, keys: PreferenceCatalogue.keys(appliedBy: [.webSecurity, .webUIFiles]), when: .asked) {
            [weak settings] change in
            guard let now = settings?.current else { return }
            if change.asked(\.webUICustomHTTPHeaders, \.webUIUseCustomHTTPHeadersEnabled), now[\.webUIUseCustomHTTPHeadersEnabled] {
                for line in WebSecurityPolicy.headerLines(now[\.webUICustomHTTPHeaders]).skipped {
                    log.add("Missing ':' separator in WebUI custom HTTP header: \"\(line)\"", kind: .warning)
                }
            }
            let policy = WebSecurityPolicy(now)
            self.update(policy)
            await sessions.setPolicy(policy.sessions)
        }
    }
}
