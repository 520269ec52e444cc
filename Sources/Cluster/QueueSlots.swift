/// The cluster's queueing limits (active downloads, seeds, torrents) divided between the nodes that are up, by what
/// their torrents want: the smallest wants are met in full, the rest share what is left evenly (max-min fairness),
/// and the slots nobody wants go round the nodes in name order, so that the numbers add up to the limit exactly and
/// a torrent added anywhere can often start before the next division.
public enum QueueSlots {
    /// `limit` (< 0: unlimited, and so is every node) divided among `wants` (node → torrents wanting a slot).
    public static func divide(_ limit: Int, wants: [String: Int]) -> [String: Int] {
        guard limit >= 0 else { return wants.mapValues { _ in -1 } }
        let names = wants.keys.sorted()
        var slots: [String: Int] = [:]
        var left = limit
        for (served, name) in names.sorted(by: { (wants[$0]!, $0) < (wants[$1]!, $1) }).enumerated() {
            let given = min(max(0, wants[name]!), left / (names.count - served))
            slots[name] = given
            left -= given
        }
        for (index, name) in names.enumerated() { slots[name]! += left / names.count + (index < left % names.count ? 1 : 0) }
        return slots
    }
}
