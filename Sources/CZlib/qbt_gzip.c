#include "qbt_gzip.h"

#include <limits.h>
#include <stdlib.h>
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

struct qbt_gzip_stream {
    z_stream z;
};

qbt_gzip_stream *qbt_gzip_stream_open(int level) {
    qbt_gzip_stream *stream = calloc(1, sizeof *stream);
    if (!stream) return NULL;
    if (deflateInit2(&stream->z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(stream);
        return NULL;
    }
    return stream;
}

long qbt_gzip_stream_write(qbt_gzip_stream *stream, const unsigned char *input, size_t length, unsigned char *output,
                           size_t capacity, int finish, size_t *used, int *ended) {
    *used = 0;
    *ended = 0;
    if (length > UINT_MAX) length = UINT_MAX;  // the rest on the next call
    if (capacity > UINT_MAX) capacity = UINT_MAX;
    stream->z.next_in = (Bytef *)input;
    stream->z.avail_in = (uInt)length;
    stream->z.next_out = output;
    stream->z.avail_out = (uInt)capacity;
    int result = deflate(&stream->z, finish ? Z_FINISH : Z_NO_FLUSH);
    if (result == Z_STREAM_ERROR) return -1;
    *used = length - stream->z.avail_in;
    *ended = result == Z_STREAM_END;
    return (long)(capacity - stream->z.avail_out);
}

void qbt_gzip_stream_close(qbt_gzip_stream *stream) {
    if (!stream) return;
    deflateEnd(&stream->z);
    free(stream);
}
