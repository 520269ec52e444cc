import Foundation

/// The machine's network interfaces, for `app/networkInterfaceList` and `app/networkInterfaceAddressList`.
enum NetworkInterfaces {
    static func all() -> [(name: String, address: String?)] {
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

    static func names() -> [String] {
        var seen: [String] = []
        // Like Qt's addressEntries(): an interface without an IP address is not listed.
        for entry in all() where entry.address != nil && !seen.contains(entry.name) { seen.append(entry.name) }
        return seen
    }

    /// Addresses of one interface, or of all of them for "".
    static func addresses(of name: String) -> [String] {
        all().filter { name.isEmpty || $0.name == name }.compactMap(\.address)
            .map { $0.split(separator: "%").first.map(String.init) ?? $0 }  // drop IPv6 zone ids
    }
}
