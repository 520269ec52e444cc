import ArgumentParser
import Foundation
import QBTClient

struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Log in to a server and save the session.",
        discussion: """
            The password is asked without echo, or read from QBT_PASSWORD, or from stdin with --password-stdin. \
            With --api-key (or QBT_API_KEY) no password is needed. The first server saved becomes the default.
            """)

    @Argument(help: ArgumentHelp("The server, e.g. http://127.0.0.1:8080 (default: QBT_URL).", valueName: "url"))
    var url: String?

    @Option(name: .shortAndLong, help: "User name (default: QBT_USERNAME, else admin).")
    var username: String?

    @Flag(help: "Read the password from the first line of stdin.")
    var passwordStdin = false

    @Option(help: ArgumentHelp("Use this qbtd API key instead of a password.", valueName: "key"))
    var apiKey: String?

    @Option(help: ArgumentHelp("Save the server under this name (default: its host and port).", valueName: "name"))
    var name: String?

    @Flag(help: "Make this server the default.")
    var makeDefault = false

    @Option(name: .customLong("ca-cert"), help: ArgumentHelp("Check the server's HTTPS certificate against the CA certificates in this PEM file (or QBT_CA_CERT); saved with the server.", valueName: "file"))
    var caCert: String?

    @Flag(help: "Print JSON for scripts.")
    var json = false

    func run() async throws {
        let env = ProcessInfo.processInfo.environment
        guard let text = url ?? env["QBT_URL"] else { throw ValidationError("give the server's URL, e.g. qbt login http://127.0.0.1:8080") }
        let base = try QBTClient.parseURL(text)
        let ca = (caCert ?? env["QBT_CA_CERT"].flatMap { $0.isEmpty ? nil : $0 }).map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        if let ca, !FileManager.default.isReadableFile(atPath: ca) {
            throw ValidationError("cannot read the CA file \(ca)")
        }
        let client = QBTClient(baseURL: base, caFile: ca)
        let user = username ?? env["QBT_USERNAME"] ?? "admin"
        if let key = apiKey ?? env["QBT_API_KEY"].flatMap({ $0.isEmpty ? nil : $0 }) {
            await client.use(.apiKey(key))
        } else if let password = try password(env) {
            try await client.login(username: user, password: password)
        }
        let version = try await client.appVersion()  // proves the credential works
        var config = try Config.load()
        let key = name ?? [base.host ?? "server", base.port.map(String.init)].compactMap { $0 }.joined(separator: ":")
        // Logging in again keeps what else was saved for the server (its music key).
        var server = config.servers[key] ?? Config.Server(url: base.absoluteString, username: user, credential: .none)
        server.url = base.absoluteString
        server.username = user
        server.credential = await client.credential
        server.caCert = ca
        config.servers[key] = server
        if makeDefault || config.defaultServer == nil || config.servers[config.defaultServer!] == nil { config.defaultServer = key }
        try config.save()
        if json {
            Output.printJSON(["server": key, "url": base.absoluteString, "version": version, "default": config.defaultServer == key])
        } else {
            print("Logged in to \(base.absoluteString) (qBittorrent \(version)) as \"\(key)\"\(config.defaultServer == key ? ", the default server" : "").")
        }
    }

    func password(_ env: [String: String]) throws -> String? {
        if passwordStdin { return readLine(strippingNewline: true) ?? "" }
        if let password = env["QBT_PASSWORD"] { return password }
        guard isatty(STDIN_FILENO) == 1 else {
            throw QBTClientError.invalidInput("no password: set QBT_PASSWORD, pass --password-stdin, or use --api-key")
        }
        return readSecret("Password for \(username ?? env["QBT_USERNAME"] ?? "admin"): ")
    }

    /// Reads a line from the terminal with echo off.
    func readSecret(_ prompt: String) -> String {
        FileHandle.standardError.write(Data(prompt.utf8))
        var saved = termios()
        tcgetattr(STDIN_FILENO, &saved)
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return readLine(strippingNewline: true) ?? ""
    }
}

struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "End the session and forget the server.")

    @Argument(help: ArgumentHelp("The saved server (default: the default one).", valueName: "name"))
    var name: String?

    func run() async throws {
        var config = try Config.load()
        guard let key = name ?? config.defaultServer, let saved = config.servers[key] else {
            throw QBTClientError.notLoggedIn(server: name)
        }
        // Ending the server-side session is best effort: a server that is gone is forgotten all the same.
        if let base = try? QBTClient.parseURL(saved.url) { try? await QBTClient(baseURL: base, credential: saved.credential, caFile: saved.caCert).logout() }
        config.servers[key] = nil
        if config.defaultServer == key { config.defaultServer = config.servers.keys.sorted().first }
        try config.save()
        print("Logged out of \(saved.url).")
    }
}

struct Servers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List saved servers, or choose the default one.",
        subcommands: [ListServers.self, UseServer.self], defaultSubcommand: ListServers.self)

    struct ListServers: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List saved servers.")
        @Flag(help: "Print JSON for scripts.") var json = false

        func run() async throws {
            let config = try Config.load()
            let names = config.servers.keys.sorted()
            if json {
                Output.printJSON(names.map { ["name": $0, "url": config.servers[$0]!.url, "default": $0 == config.defaultServer] as [String: Any] })
                return
            }
            if names.isEmpty { return print("No saved servers: run `qbt login URL`.") }
            print(Output.table(["", "NAME", "URL", "AUTH"], names.map { name in
                let s = config.servers[name]!
                let auth: String = switch s.credential { case .none: "none"; case .cookie: "session (\(s.username ?? "?"))"; case .apiKey: "API key" }
                return [name == config.defaultServer ? "*" : "", name, s.url, auth]
            }, flex: 2))
        }
    }

    struct UseServer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "use", abstract: "Make a saved server the default.")
        @Argument(help: ArgumentHelp("A saved server's name.", valueName: "name")) var name: String

        func run() async throws {
            var config = try Config.load()
            guard config.servers[name] != nil else { throw QBTClientError.notLoggedIn(server: name) }
            config.defaultServer = name
            try config.save()
            print("\(name) is now the default server.")
        }
    }
}
