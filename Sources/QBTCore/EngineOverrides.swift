/// What the command line forces, whatever the stored preferences say.
public struct EngineOverrides: Sendable, Equatable {
    /// `HOST:PORT` for peers; nil keeps the `listen_port` preference.
    public var peerListen: String?
    /// false forces DHT, LSD, PeX, UPnP and NAT-PMP off.
    public var discovery = true
    /// false forces uTP off.
    public var utp = true
    public init(peerListen: String? = nil, discovery: Bool = true, utp: Bool = true) {
        self.peerListen = peerListen
        self.discovery = discovery
        self.utp = utp
    }
}
