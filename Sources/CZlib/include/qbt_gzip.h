#pragma once
// gzip for HTTP answers (Content-Encoding: gzip), through zlib. The whole of qbtd's contact with zlib.
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Compresses `length` bytes of `input` into `output` as one gzip member at `level` (0-9). Returns the compressed
/// size, or -1 when it does not fit in `capacity` bytes (the caller then sends the input as it is) or zlib fails.
long qbt_gzip(const unsigned char *input, size_t length, unsigned char *output, size_t capacity, int level);

/// One gzip member written a part at a time, for an answer sent as it is made.
typedef struct qbt_gzip_stream qbt_gzip_stream;

/// A new member at `level` (0-9), or NULL when zlib cannot start one.
qbt_gzip_stream *qbt_gzip_stream_open(int level);

/// Compresses up to `length` bytes of `input` into at most `capacity` bytes of `output`; with `finish`, the member
/// is ended once all the input is in. Sets `*used` to the input bytes taken and `*ended` to 1 when the member is
/// complete. Returns the bytes written, or -1 when zlib fails. Call again while input is left, while the output came
/// back full, or (finishing) until `*ended`.
long qbt_gzip_stream_write(qbt_gzip_stream *stream, const unsigned char *input, size_t length, unsigned char *output,
                           size_t capacity, int finish, size_t *used, int *ended);

/// Frees the stream, ended or not.
void qbt_gzip_stream_close(qbt_gzip_stream *stream);

#ifdef __cplusplus
}
#endif
