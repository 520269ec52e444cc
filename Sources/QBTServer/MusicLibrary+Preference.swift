import Foundation
import Music
import QBTCore

/// qbtd's `music_dirs` preference (`PreferenceEntry.Applier.music`): existing folders only, kept across restarts as
/// qbtd's own state, a scan at once. The folders of --music-dir / QBTD_MUSIC_DIRS win over it.
extension MusicLibrary {
    @discardableResult
    nonisolated func followPreference(_ settings: ServerSettings, fromCommandLine: Bool, log: EventLog) -> PreferenceSubscription {
        settings.beforeChange(.music) { [self, weak settings] request in
            guard case .array(let list)? = request.take(\.musicDirs), let settings else { return }
            try await setDirectories(list.compactMap(\.stringValue), settings: settings, fromCommandLine: fromCommandLine, log: log)
        }
    }

    private func setDirectories(_ requested: [String], settings: ServerSettings, fromCommandLine: Bool, log: EventLog) async throws {
        // Clients send the whole preferences object back: the same list again is no change (and no rescan).
        guard requested != directories else { return }
        guard !fromCommandLine else {
            log.add("music_dirs not changed: the music folders come from --music-dir / QBTD_MUSIC_DIRS", kind: .warning)
            return
        }
        var dirs: [String] = []
        for path in requested {
            guard path.hasPrefix("/") else {
                log.add("music_dirs: \(path) is not an absolute path, left out", kind: .warning)
                continue
            }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue { dirs.append(path) }
            else { log.add("music_dirs: \(path) is not a folder, left out", kind: .warning) }
        }
        try await settings.setState(.musicDirectories, .array(dirs.map { .string($0) }))
        setDirectories(dirs)
        Task { _ = await self.scan() }
    }
}
