// MP3 frame indexing and tags through libmpg123.
#pragma once

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An MP3 file as libmpg123 reads it: format, every audio frame (ID3 tags and the Xing/Info frame are not frames),
/// and the tags (UTF-8; ID3v2, else ID3v1). error is set (and false returned) when it is not valid MP3.
typedef struct {
    int32_t sample_rate;
    int32_t channels;
    int32_t layer;
    int32_t bitrate;
    bool vbr;
    int64_t frame_count;
    int64_t total_samples;
    int64_t *offsets;
    int32_t *sizes;
    int32_t *samples;
    char *title, *artist, *album, *album_artist, *track, *disc, *year, *genre;
    char *error;
} qbt_mp3_info;

/// Reads the file frame by frame without decoding; want_frames fills offsets/sizes/samples. Blocking.
bool qbt_mp3_scan(const char *path, bool want_frames, qbt_mp3_info *out);
/// Frees what a scan allocated (the struct itself is the caller's).
void qbt_mp3_free(qbt_mp3_info *info);

#ifdef __cplusplus
}
#endif
