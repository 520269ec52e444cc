#include "qbt_gzip.h"

#include <limits.h>
#include <string.h>
#include <zlib.h>

long qbt_gzip(const unsigned char *input, size_t length, unsigned char *output, size_t capacity, int level) {
    if (length > UINT_MAX || capacity > UINT_MAX) return -1;
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    // 15 + 16: a 32 KiB window with a gzip header and trailer instead of zlib's.
    if (deflateInit2(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return -1;
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)length;
    stream.next_out = output;
    stream.avail_out = (uInt)capacity;
    long produced = deflate(&stream, Z_FINISH) == Z_STREAM_END ? (long)stream.total_out : -1;
    deflateEnd(&stream);
    return produced;
}
