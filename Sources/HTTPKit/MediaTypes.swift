/// Content types by file extension, named as qBittorrent's MIME database names them (its web files and
/// `torrents/downloadFile`), and its caching rule.
public enum MediaTypes {
    static let byExtension: [String: String] = [
        "html": "text/html", "htm": "text/html", "css": "text/css",
        "js": "application/javascript", "mjs": "application/javascript",
        "json": "application/json", "map": "application/json", "webmanifest": "application/manifest+json",
        "txt": "text/plain", "xml": "application/xml", "wasm": "application/wasm",
        "svg": "image/svg+xml", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "ico": "image/vnd.microsoft.icon", "avif": "image/avif",
        "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf",
        "mp3": "audio/mpeg", "mp4": "video/mp4", "webm": "video/webm", "qm": "application/octet-stream",
        "mkv": "video/x-matroska", "avi": "video/x-msvideo", "flac": "audio/flac", "ogg": "audio/ogg",
        "m4a": "audio/mp4", "pdf": "application/pdf", "zip": "application/zip", "nfo": "text/x-nfo",
        "srt": "application/x-subrip", "md": "text/markdown", "csv": "text/csv",
    ]

    public static func type(of path: String) -> String {
        let name = path.split(separator: "/").last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "application/octet-stream" }
        return byExtension[name[name.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }

    /// qBittorrent's `getCachingInterval`: images a week, CSS and scripts 12 hours, anything else not stored.
    public static func cacheControl(for type: String) -> String {
        let lowered = type.lowercased()
        if lowered.hasPrefix("image/") { return "private, max-age=604800" }
        if lowered == "text/css" || lowered == "application/javascript" { return "private, max-age=43200" }
        return "no-store"
    }
}
