import Foundation

/// Where qbtd's own interface lies: beside the binary as SwiftPM copies it (`qbtd_WebUI.resources/www`), or where
/// `make install` puts it (`<prefix>/share/qbtd/www` for `<prefix>/bin/qbtd`).
public enum BuiltInWebUI {
    public static var searched: [String] {
        let executable = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent().path ?? "."
        return [executable + "/qbtd_WebUI.resources/www",
                (executable as NSString).deletingLastPathComponent + "/share/qbtd/www"]
    }

    /// The first of `searched` that has a `public/index.html`.
    public static func folder() -> String? {
        searched.first { FileManager.default.fileExists(atPath: $0 + "/public/index.html") }
    }
}
