// MP3 frame indexing and tags through libmpg123: every audio frame's offset, size and sample count, without decoding.
#include "qbt_libtorrent.h"
#include "shim_strings.h"

#include <mpg123.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace {
std::string from(const mpg123_string *s) {
    if (!s || !s->p || s->fill == 0) return "";
    std::string out(s->p, strnlen(s->p, s->fill));
    return out;
}

std::string v1_field(const char *p, size_t n) {
    std::string out(p, strnlen(p, n));
    while (!out.empty() && (out.back() == ' ' || out.back() == 0)) out.pop_back();
    return out;
}

void fail(qbt_mp3_info *out, const std::string &why) {
    if (out->error) free(out->error);
    out->error = dup_string(why);
}
}  // namespace

extern "C" {

qbt_result qbt_mp3_scan(const char *path, bool want_frames, qbt_mp3_info *out) {
    static std::once_flag once;
    std::call_once(once, [] { mpg123_init(); });
    memset(out, 0, sizeof(*out));
    int err = MPG123_OK;
    mpg123_handle *mh = mpg123_new(nullptr, &err);
    if (!mh) { fail(out, "libmpg123: cannot make a handle"); return QBT_ERR_FAILED; }
    // Quiet, no resync far into junk (a file that is not MP3 must not yield frames found by chance).
    mpg123_param2(mh, MPG123_FLAGS, MPG123_QUIET, 0);
    mpg123_param2(mh, MPG123_RESYNC_LIMIT, 2048, 0);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) { mpg123_delete(mh); fail(out, std::string("cannot open: ") + strerror(errno)); return QBT_ERR_INVALID; }
    if (mpg123_open_fd(mh, fd) != MPG123_OK) {
        close(fd); mpg123_delete(mh); fail(out, "libmpg123 cannot open it"); return QBT_ERR_INVALID;
    }
    std::vector<int64_t> offsets;
    std::vector<int32_t> sizes;
    std::vector<int32_t> samples;
    int64_t total = 0;
    int rc;
    while ((rc = mpg123_framebyframe_next(mh)) == MPG123_OK || rc == MPG123_NEW_FORMAT) {
        unsigned long header = 0;
        unsigned char *body = nullptr;
        size_t bytes = 0;
        if (mpg123_framedata(mh, &header, &body, &bytes) != MPG123_OK) continue;
        int spf = mpg123_spf(mh);
        total += spf;
        ++out->frame_count;
        if (want_frames) {
            offsets.push_back(static_cast<int64_t>(mpg123_framepos(mh)));
            sizes.push_back(static_cast<int32_t>(bytes + 4));
            samples.push_back(spf);
        }
        if (out->frame_count == 1) {
            mpg123_frameinfo2 info;
            if (mpg123_info2(mh, &info) == MPG123_OK) {
                out->sample_rate = static_cast<int32_t>(info.rate);
                out->channels = info.mode == MPG123_M_MONO ? 1 : 2;
                out->layer = info.layer;
                out->bitrate = info.bitrate;
                out->vbr = info.vbr != MPG123_CBR;
            }
        }
    }
    if (rc != MPG123_DONE && out->frame_count == 0) {
        fail(out, std::string("not an MP3 file (") + mpg123_plain_strerror(rc) + ")");
    } else if (out->frame_count == 0) {
        fail(out, "not an MP3 file: no MPEG audio frame found");
    } else if (out->layer != 3) {
        fail(out, "not an MP3 file: MPEG layer " + std::to_string(out->layer));
    }
    out->total_samples = total;
    // Tags: ID3v2 first, ID3v1 where v2 says nothing.
    mpg123_id3v1 *v1 = nullptr;
    mpg123_id3v2 *v2 = nullptr;
    std::string title, artist, album, album_artist, track, disc, year, genre;
    if (mpg123_id3(mh, &v1, &v2) == MPG123_OK) {
        if (v2) {
            title = from(v2->title); artist = from(v2->artist); album = from(v2->album);
            year = from(v2->year); genre = from(v2->genre);
            for (size_t i = 0; i < v2->texts; ++i) {
                std::string id(v2->text[i].id, 4);
                std::string value = from(&v2->text[i].text);
                if (id == "TPE2") album_artist = value;
                else if (id == "TRCK") track = value;
                else if (id == "TPOS") disc = value;
                else if ((id == "TDRC" || id == "TYER") && year.empty()) year = value;
            }
        }
        if (v1) {
            if (title.empty()) title = v1_field(v1->title, 30);
            if (artist.empty()) artist = v1_field(v1->artist, 30);
            if (album.empty()) album = v1_field(v1->album, 30);
            if (year.empty()) year = v1_field(v1->year, 4);
            // ID3v1.1: a zero byte then the track number at the end of the comment.
            if (track.empty() && v1->comment[28] == 0 && v1->comment[29] != 0) track = std::to_string((unsigned char)v1->comment[29]);
            if (genre.empty() && v1->genre != 255) genre = "(" + std::to_string(v1->genre) + ")";
        }
    }
    out->title = dup_string(title); out->artist = dup_string(artist); out->album = dup_string(album);
    out->album_artist = dup_string(album_artist); out->track = dup_string(track); out->disc = dup_string(disc);
    out->year = dup_string(year); out->genre = dup_string(genre);
    if (want_frames && !offsets.empty()) {
        out->offsets = static_cast<int64_t *>(malloc(offsets.size() * sizeof(int64_t)));
        out->sizes = static_cast<int32_t *>(malloc(sizes.size() * sizeof(int32_t)));
        out->samples = static_cast<int32_t *>(malloc(samples.size() * sizeof(int32_t)));
        memcpy(out->offsets, offsets.data(), offsets.size() * sizeof(int64_t));
        memcpy(out->sizes, sizes.data(), sizes.size() * sizeof(int32_t));
        memcpy(out->samples, samples.data(), samples.size() * sizeof(int32_t));
    }
    mpg123_close(mh);
    mpg123_delete(mh);
    close(fd);
    return out->error ? QBT_ERR_INVALID : QBT_OK;
}

void qbt_mp3_free(qbt_mp3_info *info) {
    for (char **s : {&info->title, &info->artist, &info->album, &info->album_artist, &info->track, &info->disc,
                     &info->year, &info->genre, &info->error}) {
        free(*s);
        *s = nullptr;
    }
    free(info->offsets); free(info->sizes); free(info->samples);
    info->offsets = nullptr; info->sizes = nullptr; info->samples = nullptr;
}
}
