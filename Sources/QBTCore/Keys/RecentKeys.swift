import Foundation
import Store
import Synchronization

/// The keys `APIKeyRing.verify` admitted within the last `APIKeyRing.lastUseResolution` seconds, by hash, with their
/// scope: what a request on an event loop may check without a trip to the ring's actor (the music segments' fast
/// path). A key is here only while its recorded last use is fresh, so the ring still notes each key's use once a
/// minute; any change to the ring's keys empties it, so a revoked key or a changed scope is never admitted from here.
public final class RecentKeys: Sendable {
    /// Until when each is admitted here, on the steady clock (a step of the wall clock must not keep it longer).
    private let admitted = Mutex<[String: (scope: APIKeyScope, until: ContinuousClock.Instant)]>([:])

    init() {}

    /// The scope of `secret` when the ring admitted it recently; nil sends the caller to the ring.
    public func scope(of secret: String) -> APIKeyScope? {
        guard !secret.isEmpty, secret.utf8.count <= KeyStrength.maximumLength else { return nil }
        let hash = Digest.sha256Hex(secret)
        let now = ContinuousClock.now
        return admitted.withLock { keys in
            guard let key = keys[hash], now < key.until else { return nil }
            return key.scope
        }
    }

    /// Admits it here for the next `seconds`.
    func note(hash: String, scope: APIKeyScope, seconds: Int64) {
        let until = ContinuousClock.now + .seconds(max(0, seconds))
        admitted.withLock { $0[hash] = (scope, until) }
    }

    func clear() { admitted.withLock { $0.removeAll() } }
}
