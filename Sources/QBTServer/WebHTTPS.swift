import Foundation
import HTTPKit
import QBTCore
import SystemKit
import WebAPI

/// qBittorrent's `WebUI::configure`, HTTPS part: `use_https` and the two PEM paths, or --https-cert/--https-key
/// (which win). A change is checked before anything switches; new connections take it, open ones keep theirs.
actor WebHTTPS: WebHTTPSSwitch {
    nonisolated let commandLine: HTTPSFiles?
    private let tls: WebTLS
    private let gate: WebGate
    private let log: EventLog
    /// The files served and their modification dates when loaded (the same paths with newer files reload them).
    private var served: (files: HTTPSFiles, dates: [Date?])?

    init(tls: WebTLS, gate: WebGate, log: EventLog, commandLine: HTTPSFiles?) {
        self.tls = tls
        self.gate = gate
        self.log = log
        self.commandLine = commandLine
    }

    /// At start. Bad command-line files stop qbtd (the operator asked for exactly these); bad preference files
    /// fall back to HTTP with a critical log line, as qBittorrent does.
    func start(preferences p: PreferenceValues) async throws {
        if let files = commandLine {
            do { return try await install(files) } catch { throw HTTPSStartError(reason: "\(error)") }
        }
        guard p[\.useHTTPS] else { return }
        let files = HTTPSFiles(certificate: p[\.webUIHTTPSCertPath], key: p[\.webUIHTTPSKeyPath])
        do { try await install(files) } catch {
            log.add("WebUI: HTTPS setup failed, fallback to HTTP: \(error)", kind: .critical)
        }
    }

    func apply(_ request: HTTPSRequest) async -> Bool {
        let files = HTTPSFiles(certificate: request.certificate, key: request.key)
        if let commandLine {
            // Clients send the whole form back: only a real change is worth a word.
            if !request.enabled || files != commandLine {
                log.add("HTTPS settings not changed: they come from --https-cert/--https-key", kind: .warning)
            }
            return false
        }
        guard request.enabled else {
            if served != nil {
                tls.install(nil)
                gate.setHTTPS(false)
                served = nil
                log.add("WebUI: HTTPS off; new connections are plain HTTP", kind: .info)
            }
            return true
        }
        if let served, served.files == files, served.dates == Self.dates(files) { return true }
        do {
            try await install(files)
            return true
        } catch {
            log.add("WebUI: HTTPS setup refused: \(error); still serving \(served == nil ? "HTTP" : "HTTPS with \(served!.files.certificate)")",
                    kind: .critical)
            return false
        }
    }

    private func install(_ files: HTTPSFiles) async throws {
        let context = try await offPool { try WebTLSError.context(certificate: files.certificate, key: files.key) }
        tls.install(context)
        gate.setHTTPS(true)
        served = (files, Self.dates(files))
        log.add("WebUI: HTTPS setup successful (\(files.certificate)); new connections speak TLS", kind: .info)
    }

    private static func dates(_ files: HTTPSFiles) -> [Date?] {
        [files.certificate, files.key].map {
            (try? FileManager.default.attributesOfItem(atPath: $0))?[.modificationDate] as? Date
        }
    }
}

/// --https-cert/--https-key name files that cannot be served: qbtd does not start.
struct HTTPSStartError: Error, CustomStringConvertible {
    let reason: String
    var description: String { "--https-cert/--https-key: \(reason)" }
}
