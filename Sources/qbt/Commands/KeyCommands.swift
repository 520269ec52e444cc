import ArgumentParser
import Foundation
import QBTClient

struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "List, create and revoke the server's API keys.",
        discussion: """
            A key's scope is what it reaches: full (everything), read-only (actions that only read, and the music \
            library), music (only /music), stream (what read-only reaches, plus stream/*), upload (only uploads and tus).
              qbt keys create phone --scope music
              qbt keys create old-player --scope music --key "$EXISTING_KEY"
            """,
        subcommands: [List.self, Create.self, Revoke.self],
        defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List keys (never their secrets).")
        @OptionGroup var global: GlobalOptions
        func run() async throws {
            let client = try await global.client()
            if global.json { return Output.printJSON(try await client.json("qbtd/apiKeys")) }
            let keys = try await client.apiKeys()
            if keys.isEmpty { return Output.note("No API keys: make one with `qbt keys create NAME`.") }
            print(Output.table(["ID", "NAME", "SCOPE", "CREATED"], keys.map { key in
                [key.id, key.name, key.scope, Output.date(key.createdAt)]
            }, flex: 1))
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "create", abstract: "Make a key; its secret is printed this once.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "A name to know it by.") var name: String
        @Option(help: "What it reaches: full, read-only, music, stream or upload.") var scope = "full"
        @Option(help: "Use this key (one a client already stores; at least 128 random bits) instead of a new one.") var key: String?
        func run() async throws {
            let (record, secret) = try await global.client().createAPIKey(name: name, scope: scope, key: key)
            if global.json {
                return Output.printJSON(["id": record.id, "name": record.name, "scope": record.scope, "key": secret])
            }
            print("Created key \(record.name) (\(record.scope)), id \(record.id).")
            print("Key: \(secret)")
            Output.note("Keep it now: the server stores only its hash and cannot show it again.")
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Revoke a key by its id or name.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The key's id, or its name when that is unique.") var key: String
        func run() async throws {
            let client = try await global.client()
            let keys = try await client.apiKeys()
            let byName = keys.filter { $0.name == key }
            let id: String
            if keys.contains(where: { $0.id == key }) { id = key }
            else if byName.count == 1 { id = byName[0].id }
            else if byName.count > 1 { throw QBTClientError.invalidInput("\(byName.count) keys are named \(key): give the id (`qbt keys list`)") }
            else { throw QBTClientError.notFound("no API key with id or name \(key): see `qbt keys list`") }
            try await client.revokeAPIKey(id: id)
            print("Revoked key \(id).")
        }
    }
}
