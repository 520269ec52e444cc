import FormData
import Uploads

extension Harness {
    /// Query strings and urlencoded bodies.
    static let form = Harness(name: "form", maxLength: 4096) { input in
        let fields = FormURLEncoded.parse(Substring(input.text))
        check(fields.keys.allSatisfy { !$0.isEmpty }, "an empty field name was kept")
    }

    /// The buffered multipart parser of the WebAPI (`torrents/add`…): a `Content-Type` line, then the body.
    static let multipart = Harness(name: "multipart", maxLength: 8192) { input in
        let (contentType, body) = input.headerAndRest
        let boundary = Multipart.boundary(fromContentType: contentType) ?? "XyZ"
        guard let form = try? Multipart.parse(Array(body), boundary: boundary) else { return }
        check(form.files.reduce(0) { $0 + $1.data.count } <= body.count, "file parts larger than the body")
    }

    /// The streaming multipart parser of uploads: a `Content-Type` line, then the body fed in chunks whose sizes
    /// the input's first byte chooses, so every split of a delimiter across chunks is reached.
    static let multipartStream = Harness(name: "multipart-stream", maxLength: 8192) { input in
        guard let first = input.first else { return }
        let (contentType, body) = UnsafeRawBufferPointer(rebasing: input[1...]).headerAndRest
        var parser = MultipartStreamParser(boundary: MultipartStreamParser.boundary(fromContentType: contentType) ?? "XyZ")
        let step = Int(first % 97) + 1
        var delivered = 0
        var inPart = false
        do {
            var offset = 0
            while offset < body.count {
                let end = min(body.count, offset + step)
                try parser.feed(UnsafeRawBufferPointer(rebasing: body[offset..<end])) { event in
                    switch event {
                    case .part:
                        check(!inPart, "a part began inside another")
                        inPart = true
                    case .data(let bytes):
                        check(inPart, "data outside a part")
                        delivered += bytes.count
                    case .partEnd:
                        check(inPart, "a part ended that had not begun")
                        inPart = false
                    }
                }
                offset = end
            }
            try parser.finish()
            check(!inPart, "a complete body with a part left open")
        } catch {}
        check(delivered <= body.count, "more part data than body")
    }
}
