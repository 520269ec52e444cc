import Synchronization

/// Each client's calls to the API's table run in lanes: at most `lanes` of one client's at once (four, as a browser
/// opens six connections to a host; with eight, a 2,000-call burst finished no sooner), and at most `heavyLanes` of
/// its expensive ones (full listings, a torrent's files; one, as with two a burst's listings kept both cores busy and
/// another client's polls waited 1.5× longer at the median); the rest wait their turn in the order they came. A
/// client that fires thousands of calls at once (qbit_manage on a big library) then waits behind itself, not in front
/// of every other client. A client is its session, else its API key, else its address.
public final class ClientLanes: Sendable {
    public static let lanes = 4
    public static let heavyLanes = 1

    struct Lane {
        var running = 0
        var heavy = 0
        var waiting: [(heavy: Bool, go: CheckedContinuation<Void, Never>)] = []

        func fits(_ isHeavy: Bool) -> Bool { running < ClientLanes.lanes && (!isHeavy || heavy < ClientLanes.heavyLanes) }

        mutating func take(_ isHeavy: Bool) {
            running += 1
            if isHeavy { heavy += 1 }
        }
    }

    private let table = Mutex<[String: Lane]>([:])

    public init() {}

    /// Runs `body` once the client's lane has room for it.
    public func run<T>(_ client: String, heavy: Bool, _ body: () async throws -> T) async throws -> T {
        let pass = await enter(client, heavy: heavy)
        defer { pass.leave() }
        return try await body()
    }

    /// Waits until the client's lane has room for a call, and takes it: the place is the caller's until it leaves
    /// (an answer sent as it is made keeps it until it is sent).
    func enter(_ client: String, heavy: Bool) async -> LanePass {
        await wait(client, heavy: heavy)
        return LanePass(lanes: self, client: client, heavy: heavy)
    }

    private func wait(_ client: String, heavy: Bool) async {
        await withCheckedContinuation { (go: CheckedContinuation<Void, Never>) in
            let now = table.withLock { table -> Bool in
                var lane = table[client, default: Lane()]
                defer { table[client] = lane }
                if lane.waiting.isEmpty && lane.fits(heavy) {
                    lane.take(heavy)
                    return true
                }
                lane.waiting.append((heavy, go))
                return false
            }
            if now { go.resume() }
        }
    }

    /// Frees a place and lets the waiting calls that fit now go, first come first.
    func leave(_ client: String, heavy: Bool) {
        let ready = table.withLock { table -> [CheckedContinuation<Void, Never>] in
            guard var lane = table[client] else { return [] }
            lane.running -= 1
            if heavy { lane.heavy -= 1 }
            var ready: [CheckedContinuation<Void, Never>] = []
            while let first = lane.waiting.first, lane.fits(first.heavy) {
                lane.waiting.removeFirst()
                lane.take(first.heavy)
                ready.append(first.go)
            }
            table[client] = lane.running == 0 && lane.waiting.isEmpty ? nil : lane
            return ready
        }
        for go in ready { go.resume() }
    }

    /// One client's calls running or waiting now.
    func waitingOrRunning(_ client: String) -> Int { table.withLock { $0[client].map { $0.running + $0.waiting.count } ?? 0 } }

    /// Clients with calls running or waiting now.
    public var clients: Int { table.withLock { $0.count } }
}

/// One call's place in its client's lane: left once, by `leave()` or when the pass is dropped.
final class LanePass: Sendable {
    let lanes: ClientLanes
    let client: String
    let heavy: Bool
    private let left = Atomic<Bool>(false)

    init(lanes: ClientLanes, client: String, heavy: Bool) {
        self.lanes = lanes
        self.client = client
        self.heavy = heavy
    }

    func leave() {
        if !left.exchange(true, ordering: .acquiringAndReleasing) { lanes.leave(client, heavy: heavy) }
    }

    deinit { leave() }
}
