#if QBTD_FUZZ
import Foundation

// A fuzzing build links libFuzzer, whose driver `FuzzMain` starts with the harness's name taken out of the
// arguments (libFuzzer's own `main` comes along in its archive and needs `LLVMFuzzerTestOneInput`; it is not run).

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// The harness the inputs go to; set once, before the driver starts.
nonisolated(unsafe) private var current: Harness?

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    current!.body(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

enum LibFuzzer {
    /// `arguments`: the program's, without the harness's name.
    static func run(_ harness: Harness, arguments: [String]) -> Int32 {
        current = harness
        var argc = Int32(arguments.count)
        var pointers: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        return pointers.withUnsafeMutableBufferPointer { buffer in
            var argv = buffer.baseAddress
            return LLVMFuzzerRunDriver(&argc, &argv, fuzzerTestOneInput)
        }
    }
}
#endif
