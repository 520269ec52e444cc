/// Reads of what other nodes changed, for callers that must see every change acknowledged before they asked (a client
/// that set a preference through one node and reads it through another): one read at a time, and a caller that asks
/// while one runs waits for the next, which starts after its ask. A node's publications of its own changes run the
/// same way (`TorrentViewsSync`).
public actor FreshReads {
    private let read: @Sendable () async throws -> Void
    private var started = 0, finished = 0
    private var reading = false
    /// The last read failed (the catalogue out of reach): callers do not wait until one gets through again.
    private var failing = false
    /// What the last read threw.
    private var lastError: (any Error)?
    private var waiters: [(needed: Int, continuation: CheckedContinuation<Void, Never>)] = []

    public init(_ read: @escaping @Sendable () async throws -> Void) { self.read = read }

    /// Returns once a read that started after this call ended, or after `limit` (the read goes on), or at once while
    /// the catalogue is out of reach.
    public func fresh(within limit: Duration) async {
        let needed = started + 1
        if !reading { start() }
        if failing { return }
        let (ended, end) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let timer = Task { try? await Task.sleep(for: limit); end.yield() }
        let waiting = Task { await self.wait(for: needed); end.yield() }
        for await _ in ended { break }
        timer.cancel()
        _ = waiting  // not cancelled: it ends with the read
    }

    /// Returns once a read that started after this call ended, throwing what it threw: for a follower that must
    /// retry (its reads and the callers' are the same reads, never two at once applying an older over a newer).
    public func fresh() async throws {
        let needed = started + 1
        if !reading { start() }
        await wait(for: needed)
        if failing, let lastError { throw lastError }
    }

    private func wait(for needed: Int) async {
        guard finished < needed else { return }
        // The read under way at the ask may have ended before this waiter got here (it then started none for it).
        if !reading { start() }
        await withCheckedContinuation { waiters.append((needed, $0)) }
    }

    private func start() {
        reading = true
        started += 1
        Task {
            do { try await read(); done(nil) } catch { done(error) }
        }
    }

    private func done(_ error: (any Error)?) {
        finished = started
        reading = false
        failing = error != nil
        lastError = error
        let ready = waiters.filter { $0.needed <= finished }
        waiters.removeAll { $0.needed <= finished }
        for waiter in ready { waiter.continuation.resume() }
        if !waiters.isEmpty { start() }
    }
}
