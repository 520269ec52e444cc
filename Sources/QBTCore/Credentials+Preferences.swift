/// `app/setPreferences`' `web_ui_password` and `web_ui_username`: taken before anything else is stored (the login is
/// kept by `Credentials`, not among the preferences); an empty one changes nothing.
extension Credentials {
    @discardableResult
    public nonisolated func followPreferences(_ settings: ServerSettings) -> PreferenceSubscription {
        settings.beforeChange(.credentials) { [self] request in
            if case .string(let password)? = request.take(\.webUIPassword), !password.isEmpty { try await setPassword(password) }
            if case .string(let name)? = request.take(\.webUIUsername), !name.isEmpty { try await setUsername(name) }
        }
    }
}
