import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A password or API key qbtd made at its first start goes to a file only its user can read, never to stdout: that
/// is a log (journald, a supervisor's file) that others read and keep. On a terminal it is shown as well.
enum FirstStartSecrets {
    static let fileName = "first-start-credentials"

    /// Writes the lines (mode 0600, replacing an older file) and returns the file's path.
    static func write(_ lines: [String], dataDirectory: String) throws -> String {
        let path = (dataDirectory as NSString).appendingPathComponent(fileName)
        unlink(path)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path]) }
        defer { close(fd) }
        let text = Data((lines.joined(separator: "\n") + "\n").utf8)
        let written = text.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == text.count else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
        return path
    }

    static var onTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
}
