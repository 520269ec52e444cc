import Foundation
import Logging
import Store

/// Calls between a cluster's nodes through the catalogue, as opaque bytes: a call for a torrent another node runs is
/// queued for that node and waits for its answer (bounded: `timeout`); this node's own queue is served as it is
/// woken. What a call and its answer say is the caller's business (the WebAPI's, in QBTServer).
public actor CommandRelay {
    /// How long a call waits for its node.
    public static let timeout: Duration = .seconds(10)
    static let batch = 64

    let registry: any NodeRegistry
    let node: String
    let logger: Logger
    private var waiting: [Int64: CheckedContinuation<Void, Never>] = [:]
    /// Answers that arrived before their caller began to wait.
    private var early: Set<Int64> = []

    public init(registry: any NodeRegistry, node: String, logger: Logger) {
        self.registry = registry
        self.node = node
        self.logger = logger
    }

    /// Sends `request` to `target` and returns its answer.
    public func call(_ target: String, _ request: Data, timeout: Duration = CommandRelay.timeout) async throws(ClusterError) -> Data {
        let id: Int64
        do { id = try await registry.sendCommand(to: target, request) } catch { throw .unreachable("\(error)") }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if early.remove(id) != nil { return continuation.resume() }
            waiting[id] = continuation
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                await self?.wake(id)
            }
        }
        let seconds = Int(timeout.components.seconds)
        do {
            switch try await registry.collectAnswer(id) {
            case .answered(let answer): return answer
            case .withdrawn: throw ClusterError.notTaken(target, seconds: seconds)
            case .unanswered: throw ClusterError.unanswered(target, seconds: seconds)
            }
        } catch let error as ClusterError {
            throw error
        } catch {
            throw .unreachable("\(error)")
        }
    }

    private func wake(_ id: Int64) {
        waiting.removeValue(forKey: id)?.resume()
    }

    /// `SENDER:ID` of an answered call; another node's calls, and the "" of a lost connection, are not ours (a call
    /// whose answer came meanwhile is collected when its wait ends).
    private func answered(_ payload: String) {
        guard let colon = payload.lastIndex(of: ":"), payload[..<colon] == node,
              let id = Int64(payload[payload.index(after: colon)...]) else { return }
        if waiting[id] != nil {
            wake(id)
        } else {
            if early.count >= 1024 { early.removeAll() }  // bounded: an answer lands here only between send and wait
            early.insert(id)
        }
    }

    /// Wakes the waiting callers as their answers come, until cancelled.
    public func followAnswers() async {
        for await payload in registry.answerNotifications() { answered(payload) }
    }

    /// Serves the calls queued for this node with `handle`, each in a task of its own, until cancelled: when woken,
    /// and every few seconds for any queued while it was not listening.
    public func serve(_ handle: @escaping @Sendable (Data) async -> Data) async {
        await takeAndServe(handle)
        for await target in registry.commandNotifications() where target == node || target.isEmpty {
            await takeAndServe(handle)
        }
    }

    /// The calls queued while no notification came (a lost connection): how often to look anyway.
    public static let lookEvery: Duration = .seconds(3)

    /// Takes what is queued for this node now.
    public func serveQueued(_ handle: @escaping @Sendable (Data) async -> Data) async {
        await takeAndServe(handle)
    }

    private func takeAndServe(_ handle: @escaping @Sendable (Data) async -> Data) async {
        for _ in 0..<1000 {  // bounded: 64,000 calls at one wake
            let calls: [(id: Int64, request: Data)]
            do { calls = try await registry.takeCommands(limit: Self.batch) } catch {
                logger.warning("node \(node) could not take the calls queued for it (again at the next wake): \(error)")
                return
            }
            for call in calls {
                Task { [registry, logger, node] in
                    let answer = await handle(call.request)
                    do { try await registry.answerCommand(call.id, answer) } catch {
                        logger.warning("node \(node) could not answer call \(call.id): \(error)")
                    }
                }
            }
            if calls.count < Self.batch { return }
        }
    }
}
