import Foundation

/// Runs a harness once on each input file (folders are read one level deep), as libFuzzer would.
enum Replay {
    static func run(_ harness: Harness, paths: [String]) -> Int32 {
        var files: [String] = []
        for path in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                FileHandle.standardError.write(Data("qbtd-fuzz: no such file or folder: \(path)\n".utf8))
                return 2
            }
            if isFolder.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                files += names.sorted().map { path + "/" + $0 }
            } else {
                files.append(path)
            }
        }
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            data.withUnsafeBytes { harness.body($0) }
        }
        print("\(harness.name): \(files.count) inputs replayed, no crash")
        return 0
    }
}
