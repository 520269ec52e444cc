import Foundation
import Synchronization

/// Files that appear in watched folders, from inotify: a file closed after writing (however slowly it was written)
/// or moved in. One thread blocks in `read`; nothing polls.
final class FolderEvents: Sendable {
    private let fd: Int32
    /// Watch descriptor → folder (a box the reading thread shares).
    private final class Table: Sendable { let folders = Mutex<[Int32: String]>([:]) }
    private let watches = Table()

    /// nil when inotify is not available. `onFile(folder, name)`; an empty name says the folder's watch ended
    /// (deleted, unmounted); both empty say events were lost and every folder should be read again.
    init?(onFile: @escaping @Sendable (_ folder: String, _ name: String) -> Void) {
        fd = inotify_init1(Int32(IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        let fd = self.fd, watches = self.watches
        let thread = Thread {
            let size = 64 * 1024
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
            defer { buffer.deallocate() }
            while true {
                let count = read(fd, buffer, size)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return }
                var offset = 0
                while offset + MemoryLayout<inotify_event>.size <= count {
                    let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                    let nameStart = offset + MemoryLayout<inotify_event>.size
                    if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                        onFile("", "")  // events were lost: every folder is read again
                    } else if event.mask & UInt32(IN_IGNORED) != 0 {
                        if let folder = watches.folders.withLock({ $0.removeValue(forKey: event.wd) }) { onFile(folder, "") }
                    } else if event.len > 0 {
                        let name = String(cString: buffer.advanced(by: nameStart).assumingMemoryBound(to: CChar.self))
                        if let folder = watches.folders.withLock({ $0[event.wd] }) { onFile(folder, name) }
                    }
                    offset = nameStart + Int(event.len)
                }
            }
        }
        thread.name = "qbtd-watched-folders"
        thread.start()
    }

    /// Watches exactly `folders` from now on; returns the ones that cannot be watched, with the reason.
    func watch(_ folders: [String]) -> [(String, String)] {
        var failed: [(String, String)] = []
        watches.folders.withLock { current in
            for wd in current.keys { inotify_rm_watch(fd, wd) }
            current = [:]
            for folder in folders {
                let wd = inotify_add_watch(fd, folder, UInt32(IN_CLOSE_WRITE | IN_MOVED_TO))
                if wd < 0 { failed.append((folder, String(cString: strerror(errno)))) } else { current[wd] = folder }
            }
        }
        return failed
    }
}
