#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore

/// Below the HTTP encoder of a plain-HTTP connection: swaps each marker of its `FileRegionOutlet` for the file
/// region it names, so the socket sends it with sendfile(2); everything else passes untouched.
final class FileRegionHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    let outlet: FileRegionOutlet

    init(outlet: FileRegionOutlet) { self.outlet = outlet }

    func handlerAdded(context: ChannelHandlerContext) {
        FileRegionOutlet.register(outlet, for: context.channel)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        FileRegionOutlet.unregister(context.channel)
        outlet.close()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .byteBuffer(let buffer) = unwrapOutboundIn(data), let id = FileRegionOutlet.markerID(buffer) else {
            context.write(data, promise: promise)
            return
        }
        guard let region = outlet.take(id) else {
            // A marker whose region is gone must never reach the client as bytes: the body cannot go on.
            promise?.fail(ChannelError.ioOnClosedChannel)
            context.close(promise: nil)
            return
        }
        let written = context.eventLoop.makePromise(of: Void.self)
        let watch = Self.watchLength(of: region, channel: context.channel)
        written.futureResult.whenComplete { result in
            watch.cancel()
            try? region.handle.close()
            region.sent.completeWith(result)
            promise?.completeWith(result)
        }
        let file = FileRegion(fileHandle: region.handle, readerIndex: region.offset, endIndex: region.offset + region.count)
        context.write(wrapOutboundOut(.fileRegion(file)), promise: written)
    }

    /// A file cut shorter than its region while it is being sent would leave sendfile(2) sending nothing, and NIO
    /// trying again as long as the socket is writable: every 2 s a region still in flight checks its file's length,
    /// and the connection closes (the body ends short) when the file no longer reaches the region's end.
    static func watchLength(of region: FileRegionOutlet.Region, channel: any Channel) -> RepeatedTask {
        let handle = region.handle, end = Int64(region.offset + region.count)
        return channel.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(2), delay: .seconds(2)) { task in
            var info = stat()
            let length = try? handle.withUnsafeFileDescriptor { fstat($0, &info) == 0 ? Int64(info.st_size) : nil }
            guard let length, length < end else { return }
            task.cancel()
            channel.close(promise: nil)
        }
    }
}
