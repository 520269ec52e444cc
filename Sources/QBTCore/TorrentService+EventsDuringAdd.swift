import TorrentEngine

/// libtorrent can raise a torrent's first events (checked, finished, a file completed) in the same breath as the
/// answer to its add, and they can reach this actor before the add's continuation does. They wait until the torrent
/// is known and set up, then are handled in the order they came: none finds the torrent missing and is lost.
extension TorrentService {
    /// Every event goes through here: held back while its torrent's add is in flight, handled at once otherwise.
    func receive(_ event: EngineEvent) async {
        if let id = event.torrentID, addsInFlight[id] != nil {
            addsInFlight[id]?.append(event)
            return
        }
        await handle(event)
    }

    /// These torrents go to the engine now: their events wait for `addSettled`.
    func addsStarted(_ ids: [TorrentID]) {
        for id in ids where addsInFlight[id] == nil { addsInFlight[id] = [] }
    }

    /// The add answered and the torrent is set up (or refused): the events held back are handled, oldest first,
    /// with any that arrive while they are.
    func addSettled(_ id: TorrentID) async {
        while let held = addsInFlight[id] {
            guard !held.isEmpty else {
                addsInFlight[id] = nil
                return
            }
            addsInFlight[id] = []
            for event in held { await handle(event) }
        }
    }
}
