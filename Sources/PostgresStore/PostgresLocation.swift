import Foundation
import NIOSSL
import PostgresNIO
import Store

/// A `postgres://user:password@host:port/database?sslmode=…` URL (libpq's form), as postgres-nio's two
/// configurations: the pool's and a single connection's (the first contact, which fails fast with a clear reason).
/// `sslmode` takes disable, prefer (the default) or require; `?host=/run/postgresql` names a socket folder.
struct PostgresLocation {
    var host: String?
    var socketPath: String?
    var port: Int
    var user: String
    var password: String?
    var database: String?
    var sslmode: String

    init(_ text: String) throws(StoreError) {
        guard let url = URLComponents(string: text), ["postgres", "postgresql"].contains(url.scheme ?? "") else {
            throw StoreError.badLocation("\(text) is not a postgres:// URL (postgres://USER:PASSWORD@HOST:PORT/DATABASE)")
        }
        let query = Dictionary((url.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        port = url.port ?? 5432
        user = url.user ?? ProcessInfo.processInfo.environment["USER"] ?? "postgres"  // URLComponents decodes them
        password = url.password
        database = url.path.count > 1 ? String(url.path.dropFirst()).removingPercentEncoding : nil
        sslmode = query["sslmode"] ?? "prefer"
        guard ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"].contains(sslmode) else {
            throw StoreError.badLocation("sslmode=\(sslmode) is not one of disable, prefer, require")
        }
        if let folder = query["host"], folder.hasPrefix("/") {
            socketPath = "\(folder)/.s.PGSQL.\(port)"
        } else if let name = url.host, !name.isEmpty {
            host = name
        } else {
            throw StoreError.badLocation("\(text) names no host")
        }
    }

    /// Where it is, for messages.
    var place: String { socketPath ?? "\(host ?? ""):\(port)" }

    /// libpq's meaning of `sslmode`: prefer and require encrypt without checking the server's certificate (Debian's
    /// PostgreSQL has a self-signed one), verify-ca checks it against the system's CAs, verify-full its name too.
    var tlsConfiguration: TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = switch sslmode {
        case "verify-full": .fullVerification
        case "verify-ca": .noHostnameVerification
        default: .none
        }
        return tls
    }

    var client: PostgresClient.Configuration {
        if let socketPath { return .init(unixSocketPath: socketPath, username: user, password: password, database: database) }
        let tls: PostgresClient.Configuration.TLS = switch sslmode {
        case "disable": .disable
        case "allow", "prefer": .prefer(tlsConfiguration)
        default: .require(tlsConfiguration)
        }
        return .init(host: host ?? "", port: port, username: user, password: password, database: database, tls: tls)
    }

    var connection: PostgresConnection.Configuration {
        if let socketPath { return .init(unixSocketPath: socketPath, username: user, password: password, database: database) }
        let tls: PostgresConnection.Configuration.TLS
        switch sslmode {
        case "disable": tls = .disable
        case "allow", "prefer": tls = (try? NIOSSLContext(configuration: tlsConfiguration)).map { .prefer($0) } ?? .disable
        default: tls = (try? NIOSSLContext(configuration: tlsConfiguration)).map { .require($0) } ?? .disable
        }
        return .init(host: host ?? "", port: port, username: user, password: password, database: database, tls: tls)
    }
}
