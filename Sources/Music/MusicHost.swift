import Foundation

/// The host side of the music WebSocket channel: what each connected client is playing, as its commands and its
/// own reports say. Commands change the client's state; the host answers with `playbackState`.
public actor MusicHost {
    public static let protocolVersion = 1

    public struct PlaybackState: Sendable, Equatable {
        public var trackId: Int64?
        public var queueIds: [Int64] = []
        public var playing = false
        public var position: Double = 0
        public var volume: Double = 1
        public var shuffle = false
    }

    private var states: [UUID: PlaybackState] = [:]

    public init() {}

    public func connect(_ client: UUID) { states[client] = PlaybackState() }
    public func disconnect(_ client: UUID) { states[client] = nil }

    public enum Failure: Error, CustomStringConvertible {
        case bad(String)
        public var description: String { switch self { case .bad(let why): why } }
    }

    /// Applies one client command (`type` plus its fields) and returns the client's new state.
    public func apply(_ client: UUID, _ command: [String: Any]) throws -> PlaybackState {
        guard var s = states[client] else { throw Failure.bad("not connected") }
        func number(_ key: String) throws -> Double {
            guard let value = (command[key] as? NSNumber)?.doubleValue, value.isFinite else { throw Failure.bad("\(key) must be a number") }
            return value
        }
        switch command["type"] as? String {
        case "play":
            guard let id = (command["trackId"] as? NSNumber)?.int64Value else { throw Failure.bad("play needs trackId") }
            s.trackId = id
            s.queueIds = (command["queueIds"] as? [NSNumber])?.map(\.int64Value) ?? [id]
            s.playing = true
            s.position = 0
        case "pause": s.playing = false
        case "resume": s.playing = s.trackId != nil
        case "next", "previous":
            guard let current = s.trackId, let at = s.queueIds.firstIndex(of: current) else { break }
            let step = command["type"] as? String == "next" ? 1 : -1
            if s.queueIds.indices.contains(at + step) { s.trackId = s.queueIds[at + step]; s.position = 0 }
        case "seek":
            let position = try number("position")
            guard position >= 0 else { throw Failure.bad("position must be ≥ 0") }
            s.position = position
        case "setVolume":
            let level = try number("level")
            guard (0...1).contains(level) else { throw Failure.bad("level must be between 0 and 1") }
            s.volume = level
        case "toggleShuffle": s.shuffle.toggle()
        case "state":
            // The client's own report of what it plays: kept as the last state it reported.
            if let id = (command["trackId"] as? NSNumber)?.int64Value { s.trackId = id }
            if let playing = command["playing"] as? Bool { s.playing = playing }
            if let position = (command["position"] as? NSNumber)?.doubleValue, position >= 0 { s.position = position }
            if let volume = (command["volume"] as? NSNumber)?.doubleValue, (0...1).contains(volume) { s.volume = volume }
        case let other:
            throw Failure.bad("unknown command \(other ?? "(no type)")")
        }
        states[client] = s
        return s
    }
}
