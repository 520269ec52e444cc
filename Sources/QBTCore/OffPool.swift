import Dispatch

/// Runs blocking work (file reads, parsing a large file) on a Dispatch thread, so the concurrency pool's few
/// threads stay free for requests.
public func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global(qos: .utility).async { continuation.resume(with: Result { try work() }) }
    }
}
