#define _GNU_SOURCE
#include "qbt_linux.h"

#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

void qbt_start_writeback(int fd, int64_t offset, int64_t length) {
    sync_file_range(fd, offset, length, SYNC_FILE_RANGE_WRITE);
}

int qbt_reopen_direct(int fd) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    return open(path, O_WRONLY | O_DIRECT | O_CLOEXEC);
}

const void *qbt_memmem(const void *haystack, size_t haystack_len, const void *needle, size_t needle_len) {
    return memmem(haystack, haystack_len, needle, needle_len);
}

void qbt_name_this_thread(const char *name) {
    char kept[16];
    snprintf(kept, sizeof kept, "%s", name);
    pthread_setname_np(pthread_self(), kept);
}

void qbt_nice_this_thread(int nice) {
    setpriority(PRIO_PROCESS, (id_t)gettid(), nice);
}

int qbt_give_back_free_memory(void) {
    return malloc_trim(0);
}
