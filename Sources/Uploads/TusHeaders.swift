import Foundation

/// The tus request headers qbtd reads, parsed apart from the requests that carry them: what the client asked for,
/// or the reason it is refused (a 400 with that text).
public enum TusHeaders {
    /// `Upload-Concat`: `partial`, or `final;URL URL…` (an upload is named by its URL's last path segment).
    public static func concat(_ value: String?) throws -> TusService.Concat? {
        guard let value else { return nil }
        if value == "partial" { return .partial }
        guard value.hasPrefix("final;") else {
            throw UploadError.badRequest("Upload-Concat must be `partial` or `final;URL URL…`")
        }
        return .final(value.dropFirst("final;".count).split(separator: " ").map { url in
            String(url.split(separator: "/").last ?? "")
        })
    }

    /// `Upload-Metadata`: `key base64,key base64`; a key may come without a value.
    public static func metadata(_ header: String?) throws -> [String: String] {
        guard let header, !header.isEmpty else { return [:] }
        var out: [String: String] = [:]
        for pair in header.split(separator: ",") {
            let kv = pair.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
            guard let key = kv.first, !key.isEmpty else { continue }
            if kv.count == 2 {
                guard let data = Data(base64Encoded: String(kv[1])) else {
                    throw UploadError.badRequest("Upload-Metadata value of \(key) is not base64")
                }
                out[String(key)] = String(decoding: data, as: UTF8.self)
            } else {
                out[String(key)] = ""
            }
        }
        return out
    }

    /// `Upload-Checksum`: `<algorithm> <base64>`, for an algorithm qbtd can run (sha1, sha256, md5).
    public static func checksum(_ value: String) throws -> (digest: RunningDigest, expected: [UInt8]) {
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { throw UploadError.badRequest("Upload-Checksum must be `<algorithm> <base64>`") }
        guard let digest = RunningDigest(String(parts[0]).lowercased()) else {
            throw UploadError.unsupportedChecksum(String(parts[0]))
        }
        guard let expected = Data(base64Encoded: String(parts[1])) else {
            throw UploadError.badRequest("Upload-Checksum is not base64")
        }
        return (digest, [UInt8](expected))
    }
}
