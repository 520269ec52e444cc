import TorrentEngine

/// libtorrent can raise a torrent's first events (checked, finished, a file completed) in the same breath as the
/// answer to its add, and they can reach this actor before the add's continuation does. They wait until the torrent
/// is known and set up, then are handled in the order they came: none finds the torrent missing and is lost.
extension TorrentService {
    /// The events held for one id while adds of it are in flight.
    struct HeldEvents {
        /// Adds of this id not settled yet (a removal and a new add can overlap the settling of the last one).
        var adds = 0
        /// Whether the engine said it added the torrent: what comes before is about an earlier torrent with the same
        /// id (a removed one, a hidden metadata fetch) and is not this torrent's.
        var added = false
        var events: [EngineEvent] = []
    }

    /// Every event goes through here: held back while its torrent's add is in flight, handled at once otherwise.
    func receive(_ event: EngineEvent) async {
        guard let id = event.torrentID, addsInFlight[id] != nil else { return await handle(event) }
        if case .added = event { addsInFlight[id]?.added = true }
        if addsInFlight[id]?.added == true { addsInFlight[id]?.events.append(event) }
    }

    /// These torrents go to the engine now: their events wait for `addSettled`.
    func addsStarted(_ ids: [TorrentID]) {
        for id in ids { addsInFlight[id, default: HeldEvents()].adds += 1 }
    }

    /// The add answered and the torrent is set up (or refused): the events held back are handled, oldest first,
    /// with any that arrive while they are. Once for each id `addsStarted` was given.
    func addSettled(_ id: TorrentID) async {
        while let held = addsInFlight[id], !held.events.isEmpty {
            addsInFlight[id]?.events = []
            for event in held.events { await handle(event) }
        }
        guard let held = addsInFlight[id] else { return }
        if held.adds > 1 { addsInFlight[id] = HeldEvents(adds: held.adds - 1) } else { addsInFlight[id] = nil }
    }
}
