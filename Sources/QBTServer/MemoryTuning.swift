/// glibc's allocator, tuned for a server that answers with large buffers (a 10,000-torrent listing is ~12 MB):
/// blocks of 1 MiB and more are always mapped apart and go back to the system when freed (glibc otherwise raises
/// that threshold after the first such free and keeps later ones in a heap that does not shrink).
enum MemoryTuning {
    static func apply() {
        #if os(Linux)
        _ = glibcMallopt(-3 /* M_MMAP_THRESHOLD */, 1 << 20)
        #endif
    }

    /// Hands freed heap pages back to the system (after the restore's burst of parsing and resume data).
    static func trim() {
        #if os(Linux)
        _ = glibcMallocTrim(0)
        #endif
    }
}

#if os(Linux)
// <malloc.h> is not part of Swift's Glibc module.
@_silgen_name("mallopt") private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
@_silgen_name("malloc_trim") private func glibcMallocTrim(_ pad: Int) -> Int32
#endif
