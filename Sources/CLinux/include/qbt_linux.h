// Linux and glibc calls Swift cannot reach on its own (they need _GNU_SOURCE).
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Starts writing a file range back to disk without waiting (sync_file_range, SYNC_FILE_RANGE_WRITE), so a later
/// fsync finds little left to do.
void qbt_start_writeback(int fd, int64_t offset, int64_t length);

/// The same file as `fd`, opened again for writing with O_DIRECT (through /proc/self/fd), or -1 where the file
/// system refuses it. Direct writes skip the page cache: no copy into it and no writeback work afterwards.
int qbt_reopen_direct(int fd);

/// glibc's memmem: the first occurrence of needle, or NULL.
const void *qbt_memmem(const void *haystack, size_t haystack_len, const void *needle, size_t needle_len);

/// Names the calling thread (pthread_setname_np; at most 15 bytes are kept), as `top -H` and gdb show it.
void qbt_name_this_thread(const char *name);

/// Sets the calling thread's niceness (setpriority on its thread id; Linux keeps one per thread). A thread can raise
/// its own but, unprivileged, never lower it again.
void qbt_nice_this_thread(int nice);

/// Hands the heap's free memory back to the system (glibc's malloc_trim(0)); 1 when some was.
int qbt_give_back_free_memory(void);

#ifdef __cplusplus
}
#endif
