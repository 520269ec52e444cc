import Foundation

/// qBittorrent's "Run external program" (on torrent added, on torrent finished): the command line split as
/// `Utils::String::splitCommand` splits it, placeholders substituted per argument, no shell (a shell only when the
/// user writes one), the process started in a session of its own so it outlives nothing of qbtd's, never waited on
/// by a request; its exit status goes to the log.
public enum ExternalProgram {
    /// What the placeholders stand for.
    public struct Values: Sendable, Equatable {
        public var name = ""            // %N
        public var category = ""        // %L
        public var tags: [String] = []  // %G, joined with ","
        public var contentPath = ""     // %F
        public var rootPath = ""        // %R
        public var savePath = ""        // %D
        public var fileCount = -1       // %C (-1 without metadata)
        public var totalSize: Int64 = -1  // %Z (-1 without metadata)
        public var tracker = ""         // %T
        public var infoHashV1 = ""      // %I ("-" when there is none)
        public var infoHashV2 = ""      // %J ("-" when there is none)
        public var id = ""              // %K
        public init() {}
    }

    /// Spaces separate arguments outside double quotes; the quotes stay in the argument (and are stripped below
    /// when they enclose it whole).
    public static func split(_ command: String) -> [String] {
        var out: [String] = [], current = "", quoted = false
        for c in command {
            if c == " " && !quoted {
                if !current.isEmpty { out.append(current); current = "" }
                continue
            }
            if c == "\"" { quoted.toggle() }
            current.append(c)
        }
        if !current.isEmpty { out.append(current) }
        return out
    }

    /// qBittorrent's `replaceVariables`: scanned from the end, a known `%X` is replaced and the character before it
    /// is skipped (so `%%N` keeps its first `%`); an unknown one is left as it is.
    public static func substitute(_ text: String, _ v: Values) -> String {
        var chars = Array(text)
        var i = chars.count - 2
        while i >= 0 {
            defer { i -= 2 }
            guard chars[i] == "%" else { i += 1; continue }
            let value: String? = switch chars[i + 1] {
            case "C": String(v.fileCount)
            case "D": v.savePath
            case "F": v.contentPath
            case "G": v.tags.joined(separator: ",")
            case "I": v.infoHashV1.isEmpty ? "-" : v.infoHashV1
            case "J": v.infoHashV2.isEmpty ? "-" : v.infoHashV2
            case "K": v.id
            case "L": v.category
            case "N": v.name
            case "R": v.rootPath
            case "T": v.tracker
            case "Z": String(v.totalSize)
            default: nil
            }
            if let value { chars.replaceSubrange(i...(i + 1), with: Array(value)) }
        }
        return String(chars)
    }

    /// The program and its arguments for `template`.
    public static func arguments(_ template: String, _ v: Values) -> [String] {
        split(template.trimmingCharacters(in: .whitespacesAndNewlines)).map { argument in
            var a = argument
            if a.count >= 2, a.hasPrefix("\""), a.hasSuffix("\"") { a = String(a.dropFirst().dropLast()) }
            return substitute(a, v)
        }
    }

    /// glibc's `POSIX_SPAWN_SETSID` and `posix_spawn_file_actions_addclosefrom_np` (2.34+) are GNU extensions Swift
    /// does not import: the flag's value, and the function looked up by name.
    static let spawnSetSID: Int32 = 0x80
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    static let closeFrom: CloseFrom? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: CloseFrom.self)
    }()

    /// Starts the program (searched in PATH) with stdin, stdout and stderr on /dev/null, no descriptor of qbtd's
    /// and a session of its own; `exited` gets its status from a thread that waits for it. Returns the spawn error.
    public static func launch(_ arguments: [String], exited: @escaping @Sendable (_ status: String) -> Void) -> Int32 {
        switch spawn(arguments) {
        case .failure(let error): return error.code
        case .success(let pid):
            reap(pid) { status in
                exited(status & 0x7f == 0 ? "exit code \((status >> 8) & 0xff)" : "killed by signal \(status & 0x7f)")
            }
            return 0
        }
    }

    public struct SpawnError: Error, CustomStringConvertible {
        public let code: Int32
        public init(code: Int32) { self.code = code }
        public var description: String { String(cString: strerror(code)) }
    }

    /// Starts the program (searched in PATH) with a clean slate: stdin on /dev/null, stdout and stderr on `output`
    /// (else /dev/null), no other descriptor of qbtd's, an empty signal mask and default dispositions (qbtd's threads
    /// block SIGTERM for ServiceLifecycle; a child must not inherit that), and a session of its own.
    public static func spawn(_ arguments: [String], output: Int32? = nil) -> Result<pid_t, SpawnError> {
        guard let program = arguments.first else { return .failure(SpawnError(code: EINVAL)) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        for fd: Int32 in 1...2 {
            if let output { posix_spawn_file_actions_adddup2(&actions, output, fd) }
            else { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_WRONLY, 0) }
        }
        if let closeFrom {
            _ = closeFrom(&actions, 3)
        } else {
            // glibc before 2.34: close what is open now (a descriptor closed meanwhile is ignored by glibc).
            let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.compactMap { Int32($0) } ?? []
            for fd in open where fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigfillset(&defaults)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &none)
        let flags = posix_spawnattr_setflags(&attributes, Int16(Self.spawnSetSID | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        guard flags == 0 else { return .failure(SpawnError(code: flags)) }
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, program, &actions, &attributes, argv, environ)
        return result == 0 ? .success(pid) : .failure(SpawnError(code: result))
    }

    /// Waits for `pid` on a thread of its own (never Swift's cooperative pool) and hands `done` its raw wait status.
    public static func reap(_ pid: pid_t, done: @escaping @Sendable (_ status: Int32) -> Void) {
        Thread.detachNewThread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            done(status)
        }
    }
}
