import Foundation
import TorrentEngine

/// The machine's network interfaces, for `app/networkInterfaceList`, `app/networkInterfaceAddressList` and the
/// interface binding.
public enum NetworkInterfaces {
    public static func all() -> [(name: String, address: String?)] {
        var out: [(String, String?)] = []
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            let name = String(cString: entry.pointee.ifa_name)
            var address: String?
            if let sa = entry.pointee.ifa_addr, [AF_INET, AF_INET6].contains(Int32(sa.pointee.sa_family)) {
                var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
                let length = socklen_t(sa.pointee.sa_family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
                if getnameinfo(sa, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 {
                    address = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                }
            }
            out.append((name, address))
            cursor = entry.pointee.ifa_next
        }
        return out
    }

    /// An IPv6 address without its zone id (`fe80::1%eth0` → `fe80::1`).
    static func withoutZone(_ address: String) -> String { address.split(separator: "%").first.map(String.init) ?? address }

    public static func names() -> [String] {
        var seen: [String] = []
        // Like Qt's addressEntries(): an interface without an IP address is not listed.
        for entry in all() where entry.address != nil && !seen.contains(entry.name) { seen.append(entry.name) }
        return seen
    }

    /// Addresses of one interface, or of all of them for "".
    public static func addresses(of name: String) -> [String] {
        all().filter { name.isEmpty || $0.name == name }.compactMap(\.address)
            .map(withoutZone)
    }
}

/// qBittorrent's interface binding (`current_network_interface`, `current_interface_address`) as libtorrent's
/// `listen_interfaces` and `outgoing_interfaces`: sockets bound to the interface (by name, so libtorrent follows it
/// down and up) or to its chosen address. An interface or address that is not there is still passed on: libtorrent
/// then has nothing to listen on or connect from, and no traffic leaves by the default route.
public struct NetworkBinding: Sendable, Equatable {
    public var listenInterfaces: String
    public var outgoingInterfaces: String
    /// What the log should say about the binding (an unknown interface, an address not found).
    public var problem: String?

    /// `interfaces` is the machine's list (name, address), as `NetworkInterfaces.all()` gives it.
    public static func make(interface name: String, address: String, port: Int,
                            interfaces: [(name: String, address: String?)]) -> NetworkBinding {
        var problem: String?
        let ips: [String] = {
            let anyV4 = address == "0.0.0.0", anyV6 = address == "::"
            let literal = IPv6.v4(address) != nil || IPv6(address) != nil
            if !address.isEmpty, !anyV4, !anyV6, !literal {
                problem = "The configured network address is invalid. Address: \"\(address)\""
                return [address]
            }
            func matches(_ candidate: String) -> Bool {
                if anyV4 { return IPv6.v4(candidate) != nil }
                if anyV6 { return IPv6(candidate) != nil }
                return Self.same(candidate, address)
            }
            if name.isEmpty {
                if address.isEmpty { return ["0.0.0.0", "::"] }
                if anyV4 || anyV6 { return [address] }
                let found = interfaces.compactMap(\.address).map(NetworkInterfaces.withoutZone).filter(matches)
                if found.isEmpty {
                    problem = "Failed to find the configured network address to listen on. Address: \"\(address)\""
                    return [address]
                }
                return found
            }
            guard interfaces.contains(where: { $0.name == name }) else {
                problem = "The configured network interface is invalid. Interface: \"\(name)\""
                return [name]
            }
            if address.isEmpty { return [name] }
            let found = interfaces.filter { $0.name == name }.compactMap(\.address).map(NetworkInterfaces.withoutZone).filter(matches)
            if found.isEmpty {  // bound by name rather than not at all: an empty outgoing list is the default route
                problem = "The address \(address) is not on the interface \(name); binding to the interface instead"
                return [name]
            }
            return found
        }()
        var endpoints: [String] = [], outgoing: [String] = []
        for ip in ips {
            if IPv6.v4(ip) != nil {
                endpoints.append("\(ip):\(port)")
                if ip != "0.0.0.0" { outgoing.append(ip) }
            } else if IPv6(ip) != nil {
                endpoints.append("[\(ip)]:\(port)")
                if ip != "::" { outgoing.append(ip) }
            } else {  // an interface name (or an address that is not one): bound by name
                endpoints.append("\(ip):\(port)")
                outgoing.append(ip)
            }
        }
        return NetworkBinding(listenInterfaces: endpoints.joined(separator: ","),
                              outgoingInterfaces: outgoing.joined(separator: ","), problem: problem)
    }


    static func same(_ a: String, _ b: String) -> Bool {
        if let x = IPv6.v4(a), let y = IPv6.v4(b) { return x == y }
        if let x = IPv6(a), let y = IPv6(b) { return x == y }
        return false
    }
}
