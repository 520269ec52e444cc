import Dispatch

/// Runs a blocking libcurl transfer on a Dispatch thread, so the concurrency pool's few threads stay free.
func onDispatchThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global(qos: .utility).async { continuation.resume(with: Result { try work() }) }
    }
}
