import Dispatch

/// Runs blocking work (file reads, parsing a large file, a libcurl transfer, a folder walk) on a Dispatch thread, so
/// the concurrency pool's few threads (two on a 2-core machine) stay free for requests. qbtd's one way to do it.
public func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global(qos: .utility).async { continuation.resume(with: Result { try work() }) }
    }
}

/// The same, for work that cannot fail.
public func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        DispatchQueue.global(qos: .utility).async { continuation.resume(returning: work()) }
    }
}
