import Foundation

/// The OpenAPI document qbtd serves at `/api/v2/qbtd/openapi.yaml`: `openapi/qbtd.yaml` itself (written by
/// `make openapi`), copied beside the binary by SwiftPM as this target's resource (`qbtd_OpenAPIDocument.resources`)
/// or installed by `make install` as `<prefix>/share/qbtd/openapi.yaml` for `<prefix>/bin/qbtd`.
public enum OpenAPIDocument {
    public static var searched: [String] {
        let folder = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent() ?? URL(fileURLWithPath: ".")
        return [folder.appendingPathComponent("qbtd_OpenAPIDocument.resources/qbtd.yaml").path,
                folder.deletingLastPathComponent().appendingPathComponent("share/qbtd/openapi.yaml").path]
    }

    /// The document's bytes, read once (at start-up: the server asks before it serves), or nil when it is in none of
    /// `searched`.
    public static let bytes: [UInt8]? = searched.lazy.compactMap { FileManager.default.contents(atPath: $0) }.first.map { Array($0) }
}
