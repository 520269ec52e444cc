import CLibtorrent

/// Statuses refreshed on demand. Asking libtorrent for the statuses that changed costs its network thread and this
/// one a conversion per changed torrent; with hundreds downloading and no client looking, that was most of an idle
/// server's CPU. So the periodic post slows to every tenth second while no one reads, and a reader that finds the
/// snapshot older than a second posts at once and waits (briefly) for the answer.
extension LibtorrentEngine {
    /// How long after a reader's last request the statuses keep coming every second: a client polling every one to
    /// three seconds (qBittorrent's WebUI, VueTorrent, qbtd's page) keeps them coming; a slower one is answered by
    /// `freshen`.
    static let demandWindow: Duration = .seconds(3)
    /// A snapshot younger than this is fresh enough for any reader (the one-second refresh).
    static let freshness: Duration = .milliseconds(1000)
    /// While readers keep the statuses coming every second, a snapshot younger than this is fresh enough: the next
    /// one is on its way, and a reader does not wait for it. (Waiting, a web interface's poll took as long as
    /// libtorrent's answer under another client's burst of calls, up to `freshWait`.)
    static let steadyFreshness: Duration = .milliseconds(2000)
    /// The most a reader waits for libtorrent's answer before it takes the snapshot as it is.
    static let freshWait: Duration = .milliseconds(250)

    /// libtorrent's tick while the session is quiet (no reader, no peer connected), and while it is not (its default).
    /// The tick hands out bandwidth and makes time-critical requests; with no peer there is nothing to hand out, and
    /// a slower tick halves what 200 started torrents cost libtorrent's thread when nothing moves.
    static let quietTick = 1000, busyTick = 500

    /// A reader is about to read statuses: the next ones come every second for a while, and the tick is brisk again.
    public nonisolated func noteDemand() {
        lastDemand.withLock { $0 = .now }
        if tickIsQuiet.withLock({ $0 }) { Task { await self.setQuietTick(false) } }
    }

    /// Between quiet posts: the slow tick when no peer is connected, the brisk one as soon as one is.
    func followQuiet() {
        setQuietTick(!demandedRecently && snapshot.counters.peerConnections == 0)
    }

    func setQuietTick(_ quiet: Bool) {
        guard !closed, tickIsQuiet.withLock({ $0 }) != quiet else { return }
        let pack = qbt_settings_new()!
        defer { qbt_settings_free(pack) }
        var error: UnsafeMutablePointer<CChar>?
        let tick = String(quiet ? Self.quietTick : Self.busyTick)
        guard qbt_settings_set(pack, "tick_interval", tick, &error), qbt_session_apply(sessionRaw, pack, &error) else {
            logger.warning("tick_interval \(tick) not applied: \(takeCString(error))")
            return
        }
        tickIsQuiet.withLock { $0 = quiet }
        logger.debug("libtorrent ticks every \(tick) ms")
        // A reader that came meanwhile saw the brisk tick and asked for nothing: it is brisk again now.
        if quiet && demandedRecently { setQuietTick(false) }
    }

    nonisolated var demandedRecently: Bool {
        lastDemand.withLock { $0.map { ContinuousClock.now - $0 < Self.demandWindow } ?? false }
    }

    /// Returns once the snapshot is at most about a second old: at once when the last answer is that recent (or two
    /// seconds, while readers keep the one-second posts coming), else once libtorrent answered a post (the one in flight, or one made now) or `freshWait` passed. Readers arriving
    /// meanwhile wait for the same answer.
    public func freshen() async {
        let steady = demandedRecently
        noteDemand()
        guard !closed else { return }
        let age = ContinuousClock.now - lastAnswered
        if steady && age < Self.steadyFreshness { return }
        let post: UInt64
        if let pending = freshWaiters.last?.post {
            post = pending
        } else {
            guard age >= Self.freshness else { return }
            // The next state update drained answers the post in flight, or the one made here; counting answers
            // this way survives alerts libtorrent may have dropped.
            post = statesSeen + 1
            if lastPost <= lastAnswered { postUpdates() }
            Task { [weak self] in
                try? await Task.sleep(for: Self.freshWait)
                await self?.expireFreshWaiters(upTo: post)
            }
        }
        await withCheckedContinuation { freshWaiters.append((post, $0)) }
    }

    /// After each drain: notes a state update that arrived, and lets the readers it answers go on.
    func answerFreshWaiters() {
        guard !closed else { return }
        let seen = qbt_state_updates_seen(sessionRaw)
        if seen != statesSeen {
            statesSeen = seen
            lastAnswered = .now
        }
        expireFreshWaiters(upTo: seen)
    }

    /// Lets the readers waiting for posts up to `post` go on.
    func expireFreshWaiters(upTo post: UInt64) {
        guard !freshWaiters.isEmpty else { return }
        var waiting: [(post: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
        for waiter in freshWaiters {
            if waiter.post <= post { waiter.continuation.resume() } else { waiting.append(waiter) }
        }
        freshWaiters = waiting
    }
}
