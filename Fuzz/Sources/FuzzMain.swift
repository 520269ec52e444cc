import Foundation

/// `qbtd-fuzz HARNESS [arguments]`. A fuzzing build (`make fuzz`: `-sanitize=fuzzer,address -DQBTD_FUZZ`) hands the
/// arguments to libFuzzer, which feeds the harness inputs it makes, guided by coverage. An ordinary build takes files
/// or folders of inputs and runs each through the harness once: how the seed corpora, and any crash a fuzzing run
/// saved, are replayed.
@main
enum FuzzMain {
    static func main() {
        let arguments = CommandLine.arguments
        if arguments.count == 2 && arguments[1] == "--list" {
            FileHandle.standardOutput.write(Data(Harness.listing.utf8))
            exit(0)
        }
        guard arguments.count >= 2, let harness = Harness.named(arguments[1]) else {
            let names = Harness.all.map(\.name).joined(separator: ", ")
            FileHandle.standardError.write(Data("usage: qbtd-fuzz HARNESS [input files or folders | libFuzzer options]\nharnesses: \(names)\n".utf8))
            exit(2)
        }
        #if QBTD_FUZZ
        exit(LibFuzzer.run(harness, arguments: [arguments[0]] + arguments.dropFirst(2)))
        #else
        exit(Replay.run(harness, paths: Array(arguments.dropFirst(2))))
        #endif
    }
}
