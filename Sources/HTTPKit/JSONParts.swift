import NIOCore
import Synchronization

/// A JSON answer too big to hold whole (the listing of a big library), made a part at a time from rows that are
/// already shared, each part sent before the next is made: `head`, then the `count` elements comma-separated, then
/// `tail`. The answer's memory is one part, never a second copy of the whole.
public final class JSONParts: Sendable {
    /// Writes element `index` at the end of `out`, or nothing and false when it is gone (a torrent removed since).
    public typealias Element = @Sendable (_ index: Int, _ out: inout ByteBuffer) -> Bool

    /// About this many bytes a part (a part ends after the element that reaches it).
    public static let partSize = 256 * 1024

    let head: [UInt8]
    let tail: [UInt8]
    let count: Int
    let element: Element
    private let cursor = Mutex<(next: Int, wroteOne: Bool, ended: Bool)>((0, false, false))

    public init(head: [UInt8], count: Int, tail: [UInt8], element: @escaping Element) {
        self.head = head
        self.count = count
        self.tail = tail
        self.element = element
    }

    /// The next part, nil after the last. Called one part at a time (by the body writing the answer).
    func nextPart() -> ByteBuffer? {
        cursor.withLock { cursor -> ByteBuffer? in
            guard !cursor.ended else { return nil }
            var out = ByteBuffer()
            out.reserveCapacity(Self.partSize + 16 * 1024)
            if cursor.next == 0 { out.writeBytes(head) }
            while cursor.next < count && out.readableBytes < Self.partSize {
                let mark = out.writerIndex
                if cursor.wroteOne { out.writeInteger(UInt8(ascii: ",")) }
                if element(cursor.next, &out) {
                    cursor.wroteOne = true
                } else {
                    out.moveWriterIndex(to: mark)
                }
                cursor.next += 1
            }
            if cursor.next == count {
                out.writeBytes(tail)
                cursor.ended = true
            }
            return out
        }
    }

    /// The whole answer at once (the tests compare it with the answer made whole).
    public func joined() -> [UInt8] {
        var all: [UInt8] = []
        while let part = nextPart() { all.append(contentsOf: part.readableBytesView) }
        return all
    }
}
