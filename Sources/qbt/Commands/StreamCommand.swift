import ArgumentParser
import Foundation
import QBTClient

struct StreamCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stream", abstract: "Play a file of a torrent while it downloads (qbtd only).",
        discussion: "qbt stream movie.torrent --play   hands the playback URL to mpv or vlc.",
        subcommands: [Play.self, ListStreams.self, StopStreams.self], defaultSubcommand: Play.self)

    struct Play: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "play", abstract: "Prepare a stream and print its playback URL.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("A .torrent file, a magnet link, or the hash of a torrent the server has.", valueName: "file-or-magnet"))
        var source: String
        @Option(help: "Which file of the torrent (default: the largest playable one).") var fileIndex: Int?
        @Option(help: "A title for the stream.") var title: String?
        @Option(help: "The network's speed in Mbit/s, to size the prefetch.") var networkMbps: Double?
        @Flag(help: "Open the URL in a player (mpv, vlc, ffplay).") var play = false
        @Option(help: "The player to use with --play.") var player: String?

        func run() async throws {
            let executable = play ? try findPlayer() : nil  // before any work on the server
            let client = try await global.client()
            let stream: QBTClient.StreamSource
            if source.lowercased().hasPrefix("magnet:") {
                guard InfoHash.isValidMagnet(source) else { throw QBTClientError.invalidInput("not a valid magnet link: \(source)") }
                stream = .magnet(source)
            } else if let data = FileManager.default.contents(atPath: source) {
                stream = .metainfo(name: URL(fileURLWithPath: source).lastPathComponent, data: data)
            } else if source.allSatisfy(\.isHexDigit) {
                stream = .hash(try await client.resolve([source])[0])
            } else {
                throw QBTClientError.invalidInput("no such file: \(source) (give a .torrent file, a magnet link or a hash)")
            }
            status("preparing the stream (fetching metadata)…")
            let prepared = try await client.streams.prepare(stream, fileIndex: fileIndex, title: title, networkMbps: networkMbps)
            endStatus()
            if global.json {
                Output.printJSON(["streamId": prepared.streamId, "playbackUrl": prepared.playbackUrl, "infoHash": prepared.infoHash,
                                  "fileName": prepared.fileName, "fileSize": prepared.fileSize, "mimeType": prepared.mimeType])
            } else {
                print(prepared.playbackUrl)
                Output.note("\(prepared.fileName) (\(Output.bytes(prepared.fileSize)), \(prepared.mimeType)); stop it with `qbt stream stop \(prepared.streamId)`")
            }
            if let executable { try launch(executable, prepared.playbackUrl, title: title ?? prepared.fileName) }
        }

        func findPlayer() throws -> String {
            let candidates = player.map { [$0] } ?? ["mpv", "vlc", "ffplay"]
            let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
            let found = candidates.lazy.compactMap { name -> String? in
                if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
                return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
            }.first
            guard let executable = found else {
                throw QBTClientError.invalidInput("no player found (\(candidates.joined(separator: ", "))): install mpv, or run without --play and open the URL yourself")
            }
            return executable
        }

        func launch(_ executable: String, _ url: String, title: String) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = executable.hasSuffix("mpv") ? ["--force-media-title=\(title)", url] : [url]
            try process.run()
            process.waitUntilExit()
            if process.terminationStatus != 0 { throw QBTClientError.conflict("\(executable) exited with status \(process.terminationStatus)") }
        }
    }

    struct ListStreams: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List running streams.")
        @OptionGroup var global: GlobalOptions
        func run() async throws {
            let streams = try await global.client().streams.list()
            if global.json { return Output.printJSON(streams) }
            let rows = (streams as? [[String: Any]] ?? []).map { s -> [String] in
                func int(_ k: String) -> Int64 { (s[k] as? NSNumber)?.int64Value ?? 0 }
                return [s["streamId"] as? String ?? "", s["fileName"] as? String ?? "", Output.bytes(int("fileSize")),
                        Output.bytes(int("position")), Output.rate(int("downloadRate")), String(int("peers"))]
            }
            if rows.isEmpty { return Output.note("No streams.") }
            print(Output.table(["ID", "FILE", "SIZE", "POSITION", "DOWN", "PEERS"], rows, flex: 1, rightAligned: [2, 3, 4, 5]))
        }
    }

    struct StopStreams: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "stop", abstract: "Stop streams (and release their cache).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Stream ids.") var ids: [String] = []
        @Flag(help: "Stop every stream.") var all = false
        func validate() throws { if ids.isEmpty && !all { throw ValidationError("give stream ids, or --all") } }
        func run() async throws {
            let client = try await global.client()
            if all { try await client.streams.stopAll() }
            for id in ids { try await client.streams.stop(id) }
            if global.json { Output.printJSON(["stopped": all ? ["all"] : ids]) } else { print("Stopped \(all ? "all streams" : ids.joined(separator: ", ")).") }
        }
    }
}
