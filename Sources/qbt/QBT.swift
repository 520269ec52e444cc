import ArgumentParser
import Foundation
import QBTClient

@main
struct QBT: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "qbt",
        abstract: "Drive qbtd, or any qBittorrent, from the command line.",
        discussion: """
            Log in once with `qbt login URL`; the session is kept in ~/.config/qbt/config.json (mode 0600). \
            Scripts can skip that and set QBT_URL with QBT_USERNAME/QBT_PASSWORD or QBT_API_KEY.
            Every command takes --json. Hashes may be shortened to a unique prefix.
            Exit codes: 0 done, 1 the server refused, 2 bad input, 3 server unreachable, 4 not logged in or \
            wrong credentials, 5 no such torrent/file/item, 64 bad usage.
            """,
        version: "qbt 0.1.0",
        subcommands: [
            Login.self, Logout.self, Servers.self,
            List.self, Add.self, Info.self, Files.self, Prio.self, Trackers.self, Peers.self,
            Stop.self, Start.self, Delete.self, Move.self, Rename.self, Recheck.self,
            CategoryCommand.self, TagCommand.self, Limits.self, Watch.self,
            Search.self, RSS.self, StreamCommand.self, Upload.self, Music.self, Keys.self,
            App.self, Transfer.self, Log.self, Prefs.self,
        ]
    )

    /// Errors as one line on stderr with a meaningful exit code; no stack traces.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as QBTClientError {
            Output.error(error.description)
            Foundation.exit(error.exitCode)
        } catch {
            exit(withError: error)
        }
    }
}
