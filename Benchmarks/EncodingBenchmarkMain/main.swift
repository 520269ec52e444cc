import EncodingBenchmark
import Foundation

// `qbtd-encode-benchmark N` (run by `make bench`): a full N-torrent `sync/maindata`, shared rows against a dictionary
// per torrent. A program of its own so the server binary carries neither the benchmark nor the in-memory engine.
let arguments = CommandLine.arguments.dropFirst()
guard arguments.count <= 1, let count = Int(arguments.first ?? "10000"), count > 0 else {
    print("usage: qbtd-encode-benchmark [TORRENTS]  (a positive count; 10000 when left out)")
    exit(2)
}
print(try await EncodingBenchmark.run(torrents: count))
