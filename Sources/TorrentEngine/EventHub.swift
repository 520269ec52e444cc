import Foundation
import Synchronization

/// An engine's subscribers: each gets every event from its subscription on, in order; every stream ends when the
/// engine finishes.
package final class EventHub: Sendable {
    private struct State {
        var subscribers: [UUID: AsyncStream<EngineEvent>.Continuation] = [:]
        var finished = false
    }

    private let state = Mutex(State())

    package init() {}

    package func subscribe() -> AsyncStream<EngineEvent> {
        let (stream, continuation) = AsyncStream<EngineEvent>.makeStream(bufferingPolicy: .unbounded)
        let key = UUID()
        let finished = state.withLock { state in
            if !state.finished { state.subscribers[key] = continuation }
            return state.finished
        }
        if finished { continuation.finish() }
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.subscribers.removeValue(forKey: key) } }
        return stream
    }

    package func yield(_ events: [EngineEvent]) {
        guard !events.isEmpty else { return }
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for event in events { for continuation in subscribers { continuation.yield(event) } }
    }

    package func finish() {
        let subscribers = state.withLock { state in
            state.finished = true
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for continuation in subscribers { continuation.finish() }
    }
}
