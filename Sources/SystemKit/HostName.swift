import Foundation

/// This machine's name as the kernel has it (`gethostname`: no resolver asked, unlike `ProcessInfo.hostName`).
public enum HostName {
    public static var current: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(cString: buffer)
        return name.isEmpty ? "localhost" : name
    }
}
