import Store

/// The WebUI administrator, kept as qBittorrent keeps it: a username and a salted PBKDF2 hash in the preferences.
public actor Credentials {
    public static let usernameKey = "web_ui_username"
    public static let passwordKey = "web_ui_password_pbkdf2"
    private let store: any Store
    public private(set) var username: String
    private var hash: PasswordHash?

    /// What `prepare` did, so the caller can tell the user.
    public enum Outcome: Sendable, Equatable {
        case kept
        case set
        case generated(String)
    }

    public init(store: any Store) async throws {
        self.store = store
        username = try await store.preference(Self.usernameKey, as: String.self) ?? "admin"
        hash = try await store.preference(Self.passwordKey, as: String.self).flatMap(PasswordHash.init(encoded:))
    }

    /// Applies the username/password given at start; with neither given nor stored, generates a password once.
    public func prepare(username newName: String?, password: String?) async throws -> Outcome {
        var outcome = Outcome.kept
        if let newName, !newName.isEmpty, newName != username {
            username = newName
            try await store.setPreferences([Self.usernameKey: newName])
        }
        var newPassword = password.flatMap { $0.isEmpty ? nil : $0 }
        if newPassword == nil && hash == nil {
            newPassword = PasswordHash.generatePassword()
            outcome = .generated(newPassword!)
        } else if newPassword != nil {
            if let hash, hash.matches(newPassword!) { return outcome }
            outcome = .set
        }
        if let newPassword {
            let fresh = PasswordHash(hashing: newPassword)
            try await store.setPreferences([Self.passwordKey: fresh.encoded, Self.usernameKey: username])
            hash = fresh
        }
        return outcome
    }

    /// `app/setPreferences`' `web_ui_password`.
    public func setPassword(_ password: String) async throws {
        let fresh = PasswordHash(hashing: password)
        try await store.setPreferences([Self.passwordKey: fresh.encoded])
        hash = fresh
    }

    public func setUsername(_ name: String) async throws {
        try await store.setPreferences([Self.usernameKey: name])
        username = name
    }

    /// Another node of the cluster changed the username or password: read them again.
    public func reload() async throws {
        username = try await store.preference(Self.usernameKey, as: String.self) ?? "admin"
        hash = try await store.preference(Self.passwordKey, as: String.self).flatMap(PasswordHash.init(encoded:))
    }

    public func verify(username candidate: String, password: String) -> Bool {
        guard let hash else { return false }
        // Hash even on a wrong name, so timing does not tell which half was wrong.
        let passwordOK = hash.matches(password)
        return passwordOK && candidate == username
    }
}
