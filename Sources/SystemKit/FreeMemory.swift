import CLinux
import Synchronization

/// Gives freed heap memory back to the system after big short-lived allocations: a listing of a big library makes
/// and frees hundreds of megabytes a part at a time, and glibc keeps what was freed (at 200,000 torrents, after 32
/// clients' full listings, 208 MiB of the 3,077 MiB resident were free heap that `malloc_trim` handed back). One trim
/// at most every `pause`, a little after the last request for one, on the background threads.
public final class FreeMemory: Sendable {
    public static let shared = FreeMemory()
    static let pause: Duration = .seconds(2)

    private let pending = Mutex(false)

    /// Asks for a trim soon (many asks in a row make one).
    public func giveBackSoon() {
        let first = pending.withLock { pending -> Bool in
            defer { pending = true }
            return !pending
        }
        guard first else { return }
        Task.detached { [self] in
            try? await Task.sleep(for: Self.pause)
            pending.withLock { $0 = false }
            _ = await inBackground { qbt_give_back_free_memory() }
        }
    }
}
