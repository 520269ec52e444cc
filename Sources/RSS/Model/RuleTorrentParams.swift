import QBTCore

/// What an auto-download rule adds torrents with: qBittorrent's `torrentParams` object, normalized (every key it
/// always writes present, enums checked), so `rss/rules` shows what was stored and the add reads typed values.
public struct RuleTorrentParams: Sendable, Equatable {
    public private(set) var values: [String: JSONValue]

    static let operatingModes = ["AutoManaged", "Forced"]
    static let stopConditions = ["None", "MetadataReceived", "FilesChecked"]
    static let contentLayouts = ["Original", "Subfolder", "NoSubfolder"]
    static let shareLimitActions = ["Default", "Stop", "Remove", "RemoveWithContent", "EnableSuperSeeding"]
    static let shareLimitsModes = ["Default", "MatchAny", "MatchAll"]
    /// Written only by qBittorrent 5.x.
    public static let v5Keys: Set<String> = ["share_limit_action", "ssl_certificate", "ssl_private_key", "ssl_dh_params"]

    public init() { self.init(object: [:]) }

    /// Reads a `torrentParams` object as qBittorrent does: a missing or mistyped value takes the default; an unknown
    /// enum name takes the enum's first value.
    public init(object o: [String: JSONValue]) {
        var v: [String: JSONValue] = [:]
        v["category"] = .string(o["category"]?.stringValue ?? "")
        var tags: [JSONValue] = []
        if case .array(let list)? = o["tags"] { tags = list.map { JSONValue.string($0.stringValue ?? "") } }
        v["tags"] = .array(tags)
        v["save_path"] = .string(o["save_path"]?.stringValue ?? "")
        v["download_path"] = .string(o["download_path"]?.stringValue ?? "")
        v["operating_mode"] = .string(Self.pick(o["operating_mode"], Self.operatingModes) ?? "AutoManaged")
        // 5.3 writes seed_mode where earlier releases wrote skip_checking (libtorrent's seed mode either way).
        v["skip_checking"] = .bool(o["skip_checking"]?.boolValue ?? o["seed_mode"]?.boolValue ?? false)
        v["share_limits_mode"] = .string(Self.pick(o["share_limits_mode"], Self.shareLimitsModes) ?? "Default")
        v["upload_limit"] = .int(Self.int(o["upload_limit"]) ?? -1)
        v["download_limit"] = .int(Self.int(o["download_limit"]) ?? -1)
        v["seeding_time_limit"] = .int(Self.int(o["seeding_time_limit"]) ?? -2)
        v["inactive_seeding_time_limit"] = .int(Self.int(o["inactive_seeding_time_limit"]) ?? -2)
        v["ratio_limit"] = .double(o["ratio_limit"]?.doubleValue ?? -2)
        v["share_limit_action"] = .string(Self.pick(o["share_limit_action"], Self.shareLimitActions) ?? "Default")
        for key in ["ssl_certificate", "ssl_private_key", "ssl_dh_params"] { v[key] = .string(o[key]?.stringValue ?? "") }
        for key in ["add_to_top_of_queue", "stopped", "use_auto_tmm", "use_download_path"] {
            if let b = o[key]?.boolValue { v[key] = .bool(b) }
        }
        if let raw = o["stop_condition"], raw != .null { v["stop_condition"] = .string(Self.pick(raw, Self.stopConditions) ?? "None") }
        if let raw = o["content_layout"], raw != .null { v["content_layout"] = .string(Self.pick(raw, Self.contentLayouts) ?? "Original") }
        values = v
    }

    static func pick(_ value: JSONValue?, _ names: [String]) -> String? {
        guard let value else { return nil }
        guard let name = value.stringValue, names.contains(name) else { return names[0] }
        return name
    }

    static func int(_ value: JSONValue?) -> Int64? {
        guard case .int(let i)? = value else {
            if case .double(let d)? = value, d == d.rounded(), abs(d) < 1e15 { return Int64(d) }
            return nil
        }
        return i
    }

    public func string(_ key: String) -> String { values[key]?.stringValue ?? "" }
    public func bool(_ key: String) -> Bool? { values[key]?.boolValue }

    public mutating func set(_ key: String, _ value: JSONValue?) { values[key] = value }

    /// The object as the profile writes it: 4.6 has no share limit action or SSL keys, only 5.3 has
    /// `share_limits_mode`, and 5.3 says `seed_mode` for `skip_checking`.
    public func json(v5: Bool, v53: Bool = false) -> JSONValue {
        var out = v5 ? values : values.filter { !Self.v5Keys.contains($0.key) }
        if v53 {
            out["seed_mode"] = out.removeValue(forKey: "skip_checking")
        } else {
            out["share_limits_mode"] = nil
        }
        return .object(out)
    }

    /// The add options these parameters give; `defaultStopped` when the rule does not say.
    public func addOptions(defaultStopped: Bool) -> AddOptions {
        var o = AddOptions()
        let category = string("category")
        o.category = category.isEmpty ? nil : category
        if case .array(let tags)? = values["tags"] { o.tags = tags.compactMap(\.stringValue).filter { !$0.isEmpty } }
        let savePath = string("save_path")
        if !savePath.isEmpty { o.savePath = savePath }
        let downloadPath = string("download_path")
        if !downloadPath.isEmpty { o.downloadPath = downloadPath }
        o.useDownloadPath = bool("use_download_path")
        o.autoTMM = bool("use_auto_tmm")
        o.forced = string("operating_mode") == "Forced"
        o.skipChecking = bool("skip_checking") ?? false
        o.uploadLimit = max(0, Int(values["upload_limit"]?.intValue ?? -1))
        o.downloadLimit = max(0, Int(values["download_limit"]?.intValue ?? -1))
        o.ratioLimit = values["ratio_limit"]?.doubleValue ?? -2
        o.seedingTimeLimit = Int(values["seeding_time_limit"]?.intValue ?? -2)
        o.inactiveSeedingTimeLimit = Int(values["inactive_seeding_time_limit"]?.intValue ?? -2)
        let action = string("share_limit_action")
        o.shareLimitAction = action == "Default" ? nil : action
        let mode = string("share_limits_mode")
        o.shareLimitsMode = mode == "Default" || mode.isEmpty ? nil : mode
        o.stopped = bool("stopped") ?? defaultStopped
        o.stopCondition = values["stop_condition"]?.stringValue
        o.contentLayout = values["content_layout"]?.stringValue.flatMap(ContentLayout.init(rawValue:))
        o.addToTopOfQueue = bool("add_to_top_of_queue") ?? false
        return o
    }
}
