#pragma once
// gzip for HTTP answers (Content-Encoding: gzip), through zlib. The whole of qbtd's contact with zlib.
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Compresses `length` bytes of `input` into `output` as one gzip member at `level` (0-9). Returns the compressed
/// size, or -1 when it does not fit in `capacity` bytes (the caller then sends the input as it is) or zlib fails.
long qbt_gzip(const unsigned char *input, size_t length, unsigned char *output, size_t capacity, int level);

#ifdef __cplusplus
}
#endif
