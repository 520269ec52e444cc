/// The `Range` header of a playback request (RFC 9110 §14): one byte range, open-ended or a suffix.
public enum ByteRange: Equatable, Sendable {
    /// No (usable) range: the whole file, 200.
    case whole
    /// Bytes `first...last`, 206.
    case part(first: Int64, last: Int64)
    /// 416: nothing of the file lies in the range.
    case unsatisfiable

    /// Several ranges are answered with the first one (players ask for one); a malformed header is ignored,
    /// as the RFC says.
    public static func parse(_ header: String?, size: Int64) -> ByteRange {
        guard let header, header.lowercased().hasPrefix("bytes=") else { return .whole }
        guard let spec = header.dropFirst(6).split(separator: ",").first?.trimmingCharacters(in: .whitespaces),
              let dash = spec.firstIndex(of: "-") else { return .whole }
        let from = spec[..<dash].trimmingCharacters(in: .whitespaces), to = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        if from.isEmpty {  // suffix: the last N bytes
            guard let count = Int64(to), count >= 0 else { return .whole }
            guard count > 0, size > 0 else { return .unsatisfiable }
            return .part(first: max(0, size - count), last: size - 1)
        }
        guard let first = Int64(from), first >= 0 else { return .whole }
        guard first < size else { return .unsatisfiable }
        if to.isEmpty { return .part(first: first, last: size - 1) }
        guard let last = Int64(to), last >= first else { return .whole }
        return .part(first: first, last: min(last, size - 1))
    }
}

/// Media types players expect, by file extension.
public enum MediaType {
    static let types: [String: String] = [
        "mp4": "video/mp4", "m4v": "video/mp4", "mkv": "video/x-matroska", "webm": "video/webm", "avi": "video/x-msvideo",
        "mov": "video/quicktime", "ts": "video/mp2t", "m2ts": "video/mp2t", "mpg": "video/mpeg", "mpeg": "video/mpeg",
        "wmv": "video/x-ms-wmv", "flv": "video/x-flv", "ogv": "video/ogg", "mp3": "audio/mpeg", "m4a": "audio/mp4",
        "aac": "audio/aac", "flac": "audio/flac", "ogg": "audio/ogg", "opus": "audio/opus", "wav": "audio/wav",
        "srt": "application/x-subrip", "vtt": "text/vtt",
    ]
    /// Audio and video, not subtitles.
    static let playable = Set(types.filter { $0.value.hasPrefix("video/") || $0.value.hasPrefix("audio/") }.keys)

    public static func of(_ path: String) -> String {
        types[fileExtension(path)] ?? "application/octet-stream"
    }

    public static func isPlayable(_ path: String) -> Bool { playable.contains(fileExtension(path)) }

    static func fileExtension(_ path: String) -> String {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return "" }
        return path[path.index(after: dot)...].lowercased()
    }
}
