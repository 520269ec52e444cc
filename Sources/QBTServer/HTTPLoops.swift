import NIOCore
import NIOPosix
import Synchronization

/// The event loops HTTP connections are served on, one group per size for the process's life (as NIO's singleton
/// is): a test that builds many applications does not start threads for each. The whole-core count is the singleton.
enum HTTPLoops {
    private static let groups = Mutex<[Int: MultiThreadedEventLoopGroup]>([:])

    static func group(threads: Int) -> any EventLoopGroup {
        let threads = max(1, threads)
        if threads == System.coreCount { return MultiThreadedEventLoopGroup.singleton }
        return groups.withLock { groups in
            if let group = groups[threads] { return group }
            let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
            groups[threads] = group
            return group
        }
    }
}
