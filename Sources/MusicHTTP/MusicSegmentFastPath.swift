#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FileRegions
import HTTPKit
import HTTPTypes
import HummingbirdCore
import Music
import NIOCore
import NIOHTTPTypes
import QBTCore

/// Music segments over plain HTTP, answered on the connection's event loop: the request a player makes every few
/// seconds, and the one `music_hls.py` makes thousands of times a second. Through the router each one took a task,
/// three actor hops, two middlewares and a response writer; here it is a path match, a key looked up among the keys
/// the ring admitted in the last minute, a segmenter the library has ready, one stat, one open and a sendfile of the
/// segment's file as `CutSegments` keeps it. Anything else (a key not seen lately, a WebUI session, a track not
/// indexed yet, a changed file, a segment not cut yet, an error to explain, TLS) goes on to the router, which answers as
/// it always has; the answer here is the router's byte for byte, headers included.
public struct MusicSegmentFastPath: Sendable {
    let library: MusicLibrary
    let keys: APIKeyRing
    let gate: WebGate
    /// The `Server` header the application puts on its answers.
    let serverName: String

    public init(library: MusicLibrary, keys: APIKeyRing, gate: WebGate, serverName: String) {
        self.library = library
        self.keys = keys
        self.gate = gate
        self.serverName = serverName
    }

    /// For Hummingbird's `additionalChannelHandlers`, one per connection. Those go in front of Hummingbird's
    /// connection-state handler; on the connection's first request this one puts the fast path behind it, so that
    /// handler still sees every request and answer here (idle timeout, `Connection: close`, graceful shutdown).
    public func handler() -> any RemovableChannelHandler { Placement(fastPath: self) }

    struct Segment {
        /// The segment's file, as `CutSegments` keeps it: sent whole.
        var descriptor: Int32
        var length: Int
        var encrypted: Bool
        var started: ContinuousClock.Instant
        /// `Connection: close`, which Hummingbird honours (and only as this exact value): closed once answered.
        var close: Bool
    }

    /// The segment `request` asks for, opened, when this path can answer it; nil leaves the request to the router.
    func segment(for request: HTTPRequest) -> Segment? {
        guard request.method == .get, let target = request.path,
              request.headerFields[.contentLength].map({ $0 == "0" }) ?? true, request.headerFields[.transferEncoding] == nil
        else { return nil }
        let started = ContinuousClock.now
        // /music/tracks/<id>/segments/<n>.mp3, with ?api_key=<key> at most
        let question = target.firstIndex(of: "?")
        let parts = target[..<(question ?? target.endIndex)].split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].isEmpty, parts[1] == "music", parts[2] == "tracks", parts[4] == "segments",
              let id = Int64(parts[3]), parts[5].hasSuffix(".mp3"), let n = Int(parts[5].dropLast(4)), n >= 0 else { return nil }
        let query = question.map { target[target.index(after: $0)...] }
        guard let key = Self.key(request.headerFields[.authorization], query: query),
              keys.recent.scope(of: key)?.permits(.music) == true,
              let (stamp, part) = library.ready.part(track: id, segment: n), part.length > 0 else { return nil }
        guard let stored = library.cut.stored(track: id, version: stamp.text, segment: n) else { return nil }
        let descriptor = open(stored.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        return Segment(descriptor: descriptor, length: stored.length, encrypted: library.configuration.encrypt, started: started,
                       close: request.headerFields[.connection] == "close")
    }

    /// The key as the router reads it: `Authorization: Bearer`, else `api_key` in the query when it needs no
    /// decoding (one that does goes to the router).
    static func key(_ authorization: String?, query: Substring?) -> String? {
        if let key = APIRouter.credential(authorization: authorization, scheme: "Bearer") { return key }
        guard let query else { return nil }
        for item in query.split(separator: "&") where item.hasPrefix("api_key=") {
            let value = item.dropFirst("api_key=".count)
            return value.contains(where: { $0 == "%" || $0 == "+" }) ? nil : String(value)
        }
        return nil
    }

    /// The router's head for a cut segment: its headers in its order (the body is the segment's file, with sendfile(2)).
    func head(for segment: Segment) -> HTTPResponse {
        var fields: HTTPFields = [.contentType: segment.encrypted ? "application/octet-stream" : "audio/mpeg",
                                  .cacheControl: "private, max-age=86400", .contentLength: String(segment.length)]
        SecurityHeaders.apply(to: &fields, gate: gate)
        fields[.date] = HTTPDateText.now()
        fields[.server] = serverName
        return HTTPResponse(status: .ok, headerFields: fields)
    }
}

extension MusicSegmentFastPath {
    /// Moves the fast path behind Hummingbird's connection-state handler on the first request, then leaves.
    final class Placement: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPRequestPart
        typealias InboundOut = HTTPRequestPart

        let fastPath: MusicSegmentFastPath
        init(fastPath: MusicSegmentFastPath) { self.fastPath = fastPath }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let pipeline = context.pipeline.syncOperations
            // Plain HTTP only: over TLS there is no outlet, and every byte is encrypted in qbtd anyway.
            if let outlet = FileRegionOutlet.of(context.channel),
               let state = try? pipeline.handler(type: HTTPConnectionStateHandler.self) {
                try? pipeline.addHandler(Answerer(fastPath: fastPath, outlet: outlet), position: .after(state))
            }
            context.fireChannelRead(data)
            context.pipeline.removeHandler(context: context, promise: nil)
        }
    }

    /// Answers the segment requests it can while no request passed on to the router awaits its answer (so answers
    /// keep the requests' order), and passes everything else on.
    final class Answerer: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPRequestPart
        typealias InboundOut = HTTPRequestPart
        typealias OutboundIn = HTTPResponsePart
        typealias OutboundOut = HTTPResponsePart

        let fastPath: MusicSegmentFastPath
        let outlet: FileRegionOutlet
        /// Requests passed on whose answer has not ended.
        var passedOn = 0
        /// The request answered here, from its head to its end.
        var answering: Segment?

        init(fastPath: MusicSegmentFastPath, outlet: FileRegionOutlet) {
            self.fastPath = fastPath
            self.outlet = outlet
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let request):
                if passedOn == 0, answering == nil, let segment = fastPath.segment(for: request) {
                    answering = segment
                    return
                }
                passedOn += 1
            case .body:
                if answering != nil { return }
            case .end:
                if let segment = answering {
                    answering = nil
                    answer(segment, context: context)
                    return
                }
            }
            context.fireChannelRead(data)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if case .end = unwrapOutboundIn(data) { passedOn = max(0, passedOn - 1) }
            context.write(data, promise: promise)
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            if let segment = answering { closeDescriptor(segment.descriptor) }
            answering = nil
        }

        func answer(_ segment: Segment, context: ChannelHandlerContext) {
            guard let frames = try? outlet.region(taking: segment.descriptor, offset: 0, count: Int64(segment.length)).marker else {
                context.close(promise: nil)  // the connection is closing: its outlet takes no more regions
                return
            }
            context.write(wrapOutboundOut(.head(fastPath.head(for: segment))), promise: nil)
            context.write(wrapOutboundOut(.body(frames)), promise: nil)
            if segment.close {
                let channel = context.channel, written = context.eventLoop.makePromise(of: Void.self)
                written.futureResult.whenComplete { _ in channel.close(promise: nil) }
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
            } else {
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
            MusicRoutes.segmentsServed.increment()
            MusicRoutes.segmentsFast.increment()
            RequestMetricsMiddleware<QBTRequestContext>.record("music/tracks", status: 200, since: segment.started)
        }
    }
}

private func closeDescriptor(_ descriptor: Int32) { close(descriptor) }
