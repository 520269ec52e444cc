import FileRegions
import Foundation
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization

/// The WebUI's TLS context, read once for each accepted connection (qBittorrent's `Http::Server::m_https`):
/// nil serves plain HTTP. Open connections keep the mode they started in.
final class WebTLS: Sendable {
    private let state = Mutex<NIOSSLContext?>(nil)
    var context: NIOSSLContext? { state.withLock { $0 } }
    func install(_ context: NIOSSLContext?) { state.withLock { $0 = context } }
}

/// `base` (HTTP/1 with WebSocket upgrades) with TLS in front when `tls` holds a context at accept time: Hummingbird's
/// `TLSChannel`, with the context looked up per connection instead of fixed at start.
struct SwitchableTLSChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let tls: WebTLS
    /// How long the connection has to send its first whole request head (`FirstRequestDeadline`).
    var requestTimeout: TimeAmount = .seconds(30)

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let base = self.base
        let setUp: EventLoopFuture<Value>
        if let context = tls.context {
            setUp = channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
            }.flatMap {
                base.setup(channel: channel, logger: logger)
            }
        } else {
            // Plain HTTP: file bytes may go out with sendfile(2), swapped in right below the response encoder.
            // Without it (no encoder found) bodies are bytes, as over TLS.
            setUp = base.setup(channel: channel, logger: logger).map { value in
                let pipeline = channel.pipeline.syncOperations
                try? pipeline.addHandler(TLSHelloOnPlainPort(), position: .first)
                if let encoder = try? pipeline.handler(type: HTTPResponseEncoder.self) {
                    try? pipeline.addHandler(FileRegionOutlet.handler(for: channel), position: .before(encoder))
                }
                return value
            }
        }
        let requestTimeout = self.requestTimeout
        return setUp.map { value in
            MalformedRequestGuard.install(in: channel, FirstRequestDeadline(requestTimeout))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// Why a certificate and key cannot be served; each case names the file to fix.
enum WebTLSError: Error, CustomStringConvertible {
    case unset
    case unreadable(String)
    case badCertificate(String)
    case badKey(String)
    case keyMismatch(certificate: String, key: String)

    var description: String {
        switch self {
        case .unset: "no certificate and key are set (web_ui_https_cert_path, web_ui_https_key_path)"
        case .unreadable(let path): "cannot read \(path) (a regular file of at most 1 MiB is needed)"
        case .badCertificate(let path): "\(path) holds no PEM certificate"
        case .badKey(let path): "\(path) holds no unencrypted PEM private key"
        case .keyMismatch(let certificate, let key): "the key in \(key) is not the key of the certificate in \(certificate)"
        }
    }

    /// A PEM file's bytes: a regular file (a FIFO or a device would block or never end) of at most 1 MiB.
    static func pem(_ path: String) throws -> [UInt8] {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              attributes[.type] as? FileAttributeType == .typeRegular,
              let size = attributes[.size] as? Int, size <= 1 << 20,
              let data = FileManager.default.contents(atPath: path), data.count <= 1 << 20
        else { throw WebTLSError.unreadable(path) }
        return Array(data)
    }

    /// A server context from PEM files: the chain (leaf first) and the leaf's key. Files are read into memory
    /// (NIOSSL's file sources abort the process on a bad file and take `.key` for DER). Blocking: call off the pool.
    static func context(certificate: String, key: String) throws -> NIOSSLContext {
        guard !certificate.isEmpty, !key.isEmpty else { throw WebTLSError.unset }
        let chainPEM = try pem(certificate), keyPEM = try pem(key)
        guard let chain = try? NIOSSLCertificate.fromPEMBytes(chainPEM), !chain.isEmpty else {
            throw WebTLSError.badCertificate(certificate)
        }
        guard let privateKey = try? NIOSSLPrivateKey(bytes: keyPEM, format: .pem) else { throw WebTLSError.badKey(key) }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
        configuration.minimumTLSVersion = .tlsv12
        do {
            // BoringSSL compares the key with the leaf's public key when the context is made.
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw WebTLSError.keyMismatch(certificate: certificate, key: key)
        }
    }
}
