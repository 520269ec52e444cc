// A plain C face for libtorrent-rasterbar. No libtorrent type crosses this header: Swift sees opaque
// handles, torrent ids (hex strings), plain structs and callbacks whose pointers live for the call only.
#ifndef QBT_LIBTORRENT_H
#define QBT_LIBTORRENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A torrent id: the v1 info-hash, or the truncated v2 one for v2/hybrid torrents, as 40 lowercase hex digits.
#define QBT_ID_LEN 41

typedef struct qbt_session qbt_session;
typedef struct qbt_settings qbt_settings;

// MARK: settings (names are libtorrent's settings_pack names; values are parsed by the setting's type)

qbt_settings *qbt_settings_new(void);
/// Returns false (and sets *error, free with qbt_free) for an unknown name or a value of the wrong type.
bool qbt_settings_set(qbt_settings *settings, const char *name, const char *value, char **error);
void qbt_settings_free(qbt_settings *settings);

// MARK: session

/// Creates a session with these settings. Alerts are enabled for what the engine consumes.
/// PeX is a plugin chosen here, once: libtorrent cannot drop it from a running session.
qbt_session *qbt_session_new(const qbt_settings *settings, bool enable_pex, char **error);
bool qbt_session_apply(qbt_session *session, const qbt_settings *settings, char **error);
/// Fast shutdown: aborts the session without waiting for trackers.
void qbt_session_free(qbt_session *session);
/// The TCP port the session listens on for peers (0 if not listening yet).
int qbt_session_listen_port(qbt_session *session);

/// Called from libtorrent's network thread when alerts become available; it must only schedule a drain.
typedef void (*qbt_notify_fn)(void *context);
void qbt_session_set_notify(qbt_session *session, qbt_notify_fn fn, void *context);

// MARK: events (drained from the alert queue)

typedef enum {
    QBT_EVENT_ADDED = 1,
    QBT_EVENT_METADATA_RECEIVED,
    QBT_EVENT_FINISHED,
    QBT_EVENT_REMOVED,
    QBT_EVENT_FILES_DELETED,
    QBT_EVENT_DELETE_FAILED,
    QBT_EVENT_RESUME_DATA,
    QBT_EVENT_RESUME_DATA_FAILED,
    QBT_EVENT_PIECE_FINISHED,
    QBT_EVENT_STATE_CHANGED,
    QBT_EVENT_PAUSED,
    QBT_EVENT_RESUMED,
    QBT_EVENT_TORRENT_ERROR,
    QBT_EVENT_FILE_ERROR,
    QBT_EVENT_HASH_FAILED,
    QBT_EVENT_CHECKED,
    QBT_EVENT_READ_PIECE,
    QBT_EVENT_LISTEN_SUCCEEDED,
    QBT_EVENT_LISTEN_FAILED,
    QBT_EVENT_STORAGE_MOVED,
    QBT_EVENT_STORAGE_MOVE_FAILED,
    QBT_EVENT_ALERTS_DROPPED,   // the alert queue overflowed: a bug to report, never expected
    QBT_EVENT_FILE_RENAMED,     // piece = file index, message = new path
    QBT_EVENT_FILE_RENAME_FAILED,
    QBT_EVENT_TRACKER_STATUS,   // after an announce: state = the tracker's status (as qbt_tracker's), data = its URL,
                                // message = its message
    QBT_EVENT_PEER_BLOCKED,     // message = ip
    QBT_EVENT_ADD_FAILED,       // an async add refused: state 1 for a duplicate; message = why
    QBT_EVENT_FILE_COMPLETED,   // piece = the file's index
    QBT_EVENT_RESUME_REJECTED,  // the fast-resume data did not match the files (a full check follows): piece and state
                                // as FILE_ERROR's (a file of the wrong size is reported as ENOENT, missing files)
    // FILE_ERROR: piece = the operation (QBT_FILE_OP_*), state = the errno (-1 when the error is not the system's)
} qbt_event_kind;

/// What a FILE_ERROR was doing (from libtorrent's operation_t).
enum {
    QBT_FILE_OP_OTHER = 0,
    QBT_FILE_OP_READ = 1,       // reading a file or the part file
    QBT_FILE_OP_OPEN = 2,       // opening a file (to read or to write)
    QBT_FILE_OP_WRITE = 3,      // writing, allocating or truncating
};

typedef struct {
    qbt_event_kind kind;
    char id[QBT_ID_LEN];      // empty for session-level events
    int32_t piece;            // PIECE_FINISHED, HASH_FAILED, READ_PIECE; FILE_*: the file index; -1 otherwise
    int32_t state;            // STATE_CHANGED: torrent_status::state_t; LISTEN_*: the port;
                              // RESUME_DATA_FAILED: 1 when nothing had changed (not an error)
    const char *message;      // human-readable detail, never NULL
    const uint8_t *data;      // RESUME_DATA: bencoded fast-resume; READ_PIECE: the piece; else NULL
    size_t size;
} qbt_event;

typedef void (*qbt_event_fn)(void *context, const qbt_event *event);
struct qbt_status_s;
typedef void (*qbt_status_fn)(void *context, const struct qbt_status_s *status);
/// Pops every pending alert and reports the ones the engine cares about; the statuses a state-update alert
/// carries (see qbt_post_torrent_updates) go to `status_fn`. Returns how many alerts were popped.
int qbt_session_pop_events(qbt_session *session, qbt_event_fn fn, qbt_status_fn status_fn, void *context);
/// Asks libtorrent for the status of every torrent that changed since the last call (post_torrent_updates);
/// the answer arrives through qbt_session_pop_events' status callback. Unchanged torrents cost nothing.
void qbt_post_torrent_updates(qbt_session *session);
/// How many state-update alerts qbt_session_pop_events has drained (each post_torrent_updates brings one).
uint64_t qbt_state_updates_seen(qbt_session *session);

// MARK: adding

typedef enum {
    QBT_OK = 0,
    QBT_ERR_INVALID = 1,    // not a torrent / not a magnet / unreadable resume data
    QBT_ERR_DUPLICATE = 2,  // already in the session
    QBT_ERR_NOT_FOUND = 3,  // no such torrent
    QBT_ERR_FAILED = 4,     // anything else; see the error text
} qbt_result;

/// A .torrent or magnet parsed once, kept for the add that follows (one parse per add).
typedef struct qbt_torrent qbt_torrent;

/// Parses .torrent bytes (or a magnet if torrent is NULL) without touching any session. On success writes
/// the id and the name (malloc'd, free with qbt_free; may be empty for a bare magnet); free the result with
/// qbt_torrent_free.
qbt_torrent *qbt_torrent_parse(const uint8_t *torrent, size_t size, const char *magnet, char id[QBT_ID_LEN],
                               char **name, char **error);
void qbt_torrent_free(qbt_torrent *parsed);

/// What a parsed .torrent or magnet says (5.2's torrent-info object). Strings and arrays live for the call only.
/// Without metadata (a magnet) only the hashes, name, trackers and web seeds are set.
typedef struct {
    const char *info_hash_v1;   // 40 hex, or ""
    const char *info_hash_v2;   // 64 hex, or ""
    const char *name;
    const char *created_by;
    const char *comment;
    int64_t creation_date;      // seconds since the epoch, 0 when unknown
    int64_t total_size;
    int32_t piece_length;
    int32_t num_pieces;
    bool has_metadata;
    bool is_private;
    size_t file_count;          // pad files left out
    const char *const *file_paths;
    const int64_t *file_sizes;
    size_t tracker_count;
    const char *const *tracker_urls;
    const int32_t *tracker_tiers;
    size_t web_seed_count;
    const char *const *web_seeds;
} qbt_torrent_summary;

typedef void (*qbt_summary_fn)(void *context, const qbt_torrent_summary *summary);
void qbt_torrent_describe(const qbt_torrent *parsed, qbt_summary_fn fn, void *context);

typedef struct {
    const qbt_torrent *parsed; // the source, parsed; NULL when the add comes from resume data alone
    const uint8_t *torrent;   // .torrent bytes, or NULL
    size_t torrent_size;
    const char *magnet;       // magnet URI, or NULL
    const uint8_t *resume;    // fast-resume bytes written by this shim, or NULL; wins over torrent/magnet
    size_t resume_size;
    const char *save_path;    // required
    const char *name;         // display name override, or NULL
    bool stopped;
    bool sequential;
    bool seed_mode;           // skip hash checking: trust the files on disk
    int32_t upload_limit;     // bytes/s, <= 0 unlimited
    int32_t download_limit;
    bool auto_managed;        // libtorrent's queue may start and stop it (ignored when stopped)
    bool super_seeding;
    int32_t max_connections;  // <= 0 unlimited
    int32_t max_uploads;      // <= 0 unlimited
    bool preallocate;         // allocate the files whole at once (qBittorrent's preallocate_all), else sparse
    bool upload_mode;         // never download pieces (a metadata-only fetch)
} qbt_add_params;

/// Adds without waiting for libtorrent's network thread: writes the id, and the outcome arrives as an ADDED event
/// (its data: the torrent's trackers and web seeds, one per line, "t <url>" or "w <url>") or an ADD_FAILED one.
/// Fails at once only for a source that does not parse.
qbt_result qbt_add_async(qbt_session *session, const qbt_add_params *params, char id[QBT_ID_LEN], char **error);

// MARK: per-torrent control

qbt_result qbt_remove(qbt_session *session, const char *id, bool delete_files);
qbt_result qbt_pause(qbt_session *session, const char *id);
qbt_result qbt_resume(qbt_session *session, const char *id);
qbt_result qbt_recheck(qbt_session *session, const char *id);
/// Gives a torrent that has no metadata yet the info dict of `torrent_file` (a whole .torrent of the same info hash),
/// as a later add of the .torrent does in qBittorrent; METADATA_RECEIVED follows. Nothing happens when it has some.
qbt_result qbt_set_metadata(qbt_session *session, const char *id, const uint8_t *torrent_file, size_t length);
qbt_result qbt_connect_peer(qbt_session *session, const char *id, const char *ip, uint16_t port);
qbt_result qbt_set_sequential(qbt_session *session, const char *id, bool sequential);
qbt_result qbt_set_limits(qbt_session *session, const char *id, int32_t upload, int32_t download);
/// Asks for fast-resume data; the answer arrives as a RESUME_DATA (or RESUME_DATA_FAILED) event. No save carries the
/// info dict (the .torrent is stored apart).
qbt_result qbt_save_resume(qbt_session *session, const char *id, bool only_if_modified);
/// Asks every torrent for its fast-resume data (never with the info dict, as qbt_save_resume), or with
/// `only_if_modified` only those libtorrent marks modified since their last save (at shutdown, as qBittorrent);
/// returns how many were asked, each of which answers with one RESUME_DATA or RESUME_DATA_FAILED event.
int qbt_save_resume_all(qbt_session *session, bool only_if_modified);

// Piece-level control, for streaming and selective download.
/// `count` deadlines (`pieces[i]` in `ms[i]` milliseconds) in one call, the torrent's others cleared first when
/// `clear_others`.
qbt_result qbt_set_piece_deadlines(qbt_session *session, const char *id, const int32_t *pieces, const int32_t *ms,
                                   size_t count, bool clear_others);
qbt_result qbt_set_piece_priority(qbt_session *session, const char *id, int32_t piece, uint8_t priority);
qbt_result qbt_set_file_priority(qbt_session *session, const char *id, int32_t file, uint8_t priority);
/// Pieces [first, first + count) at one priority, in one call (the rest keep theirs).
qbt_result qbt_set_pieces_priority(qbt_session *session, const char *id, int32_t first, int32_t count, uint8_t priority);
/// The piece arrives as a READ_PIECE event.
qbt_result qbt_read_piece(qbt_session *session, const char *id, int32_t piece);
qbt_result qbt_have_piece(qbt_session *session, const char *id, int32_t piece, bool *have);

// MARK: status

typedef struct qbt_status_s {
    char id[QBT_ID_LEN];
    const char *name;
    const char *save_path;
    const char *info_hash_v1;   // "" when absent
    const char *info_hash_v2;   // "" when absent
    const char *error;          // "" when none
    const char *current_tracker;
    const char *comment;
    const char *creator;
    const char *content_path;   // the file of a one-file torrent, else its root folder; the save path without metadata
    const char *root_path;      // the root folder, "" for a one-file torrent or without metadata
    int32_t state;              // torrent_status::state_t
    bool has_metadata;
    bool paused;
    bool auto_managed;
    bool sequential;
    bool upload_mode;
    bool super_seeding;
    bool is_finished;
    bool is_seeding;
    bool is_private;
    bool need_save_resume;      // changed since its fast-resume data was last saved
    float progress;
    float distributed_copies;
    int32_t download_rate;
    int32_t upload_rate;
    int32_t num_seeds;
    int32_t num_peers;
    int32_t num_complete;       // -1 unknown
    int32_t num_incomplete;
    int32_t num_connections;
    int32_t connections_limit;
    int32_t queue_position;     // -1 not queued
    int32_t upload_limit;
    int32_t download_limit;
    int32_t num_pieces;
    int32_t pieces_have;
    int32_t piece_length;
    int32_t trackers_count;
    int32_t next_announce;      // seconds
    int64_t total_size;         // all files
    int64_t total_wanted;
    int64_t total_wanted_done;
    int64_t total_done;
    int64_t all_time_download;
    int64_t all_time_upload;
    int64_t session_download;   // payload this session
    int64_t session_upload;
    int64_t total_failed;
    int64_t total_redundant;
    int64_t added_time;         // epoch seconds
    int64_t completed_time;     // 0 if never
    int64_t last_seen_complete;
    int64_t last_download;      // epoch seconds, 0 never
    int64_t last_upload;
    int64_t creation_date;
    int64_t active_duration;    // seconds
    int64_t seeding_duration;
    int64_t finished_duration;
    int64_t last_activity_steady; // the last payload up or down on libtorrent's steady clock (CLOCK_MONOTONIC), in
                                  // seconds; 0 never: durations measured against it survive wall-clock steps
} qbt_status;

qbt_result qbt_get_status(qbt_session *session, const char *id, qbt_status_fn fn, void *context);
/// The statuses of these torrents, in one trip to libtorrent's network thread; unknown ids are skipped.
void qbt_get_status_many(qbt_session *session, const char *const *ids, size_t count, qbt_status_fn fn, void *context);

typedef struct {
    int32_t index;
    const char *path;           // relative to the save path
    int64_t size;
    int64_t offset;             // in the torrent's byte stream
    int64_t downloaded;
    uint8_t priority;
    int32_t first_piece;
    int32_t last_piece;
} qbt_file;

typedef void (*qbt_file_fn)(void *context, const qbt_file *file);
/// Reports nothing (and QBT_OK) for a torrent without metadata.
qbt_result qbt_get_files(qbt_session *session, const char *id, qbt_file_fn fn, void *context);

/// The .torrent file of a torrent that has metadata.
typedef void (*qbt_bytes_fn)(void *context, const uint8_t *data, size_t size);
qbt_result qbt_export_torrent(qbt_session *session, const char *id, qbt_bytes_fn fn, void *context);

// MARK: trackers, web seeds, pieces, queue, storage (the rest of qBittorrent's per-torrent API)

/// One announce endpoint of a tracker (a local listen address, per BitTorrent version), as qBittorrent 5.2 lists them.
typedef struct {
    const char *name;           // the local endpoint, "ip:port" ("[ip]:port" for IPv6)
    int32_t bt_version;         // 1 or 2
    bool updating;
    int32_t status;             // 1 not contacted, 2 working, 4 not working, 5 tracker error, 6 unreachable
    const char *message;
    int32_t num_peers;
    int32_t num_seeds;
    int32_t num_leeches;
    int32_t num_downloaded;
    int64_t next_announce;      // seconds since 1970
    int64_t min_announce;
} qbt_tracker_endpoint;

typedef struct {
    const char *url;
    int32_t tier;
    int32_t status;             // qBittorrent's: 1 not contacted, 2 working, 3 updating, 4 not working,
                                // 5 tracker error, 6 unreachable
    const char *message;
    int32_t num_peers;          // -1 unknown
    int32_t num_seeds;
    int32_t num_leeches;
    int32_t num_downloaded;
    // What 5.2 adds: whether an announce is under way, the earliest next and minimum announce of the endpoints in
    // the row's state (seconds since 1970), and the endpoints themselves.
    bool updating;
    int64_t next_announce;
    int64_t min_announce;
    const qbt_tracker_endpoint *endpoints;
    int32_t endpoint_count;
} qbt_tracker;

typedef void (*qbt_tracker_fn)(void *context, const qbt_tracker *tracker);
qbt_result qbt_get_trackers(qbt_session *session, const char *id, qbt_tracker_fn fn, void *context);
/// Replaces the whole tracker list (libtorrent's replace_trackers); tiers parallel to urls.
qbt_result qbt_set_trackers(qbt_session *session, const char *id, const char *const *urls, const int32_t *tiers,
                            size_t count);
qbt_result qbt_reannounce(qbt_session *session, const char *id);

typedef void (*qbt_string_fn)(void *context, const char *value);
qbt_result qbt_get_web_seeds(qbt_session *session, const char *id, qbt_string_fn fn, void *context);
qbt_result qbt_add_web_seed(qbt_session *session, const char *id, const char *url);
qbt_result qbt_remove_web_seed(qbt_session *session, const char *id, const char *url);

/// One byte per piece: 0 missing, 1 downloading, 2 have. Nothing without metadata.
qbt_result qbt_get_piece_states(qbt_session *session, const char *id, qbt_bytes_fn fn, void *context);
/// How many connected peers have each piece (libtorrent's piece_availability); empty when there is no piece picker
/// (no metadata, or a seed).
typedef void (*qbt_ints_fn)(void *context, const int32_t *data, size_t count);
qbt_result qbt_get_piece_availability(qbt_session *session, const char *id, qbt_ints_fn fn, void *context);
/// Each piece's hash as lowercase hex (SHA-1 for v1, SHA-256 per piece layer for v2-only torrents).
qbt_result qbt_get_piece_hashes(qbt_session *session, const char *id, qbt_string_fn fn, void *context);

typedef enum { QBT_QUEUE_UP = 0, QBT_QUEUE_DOWN, QBT_QUEUE_TOP, QBT_QUEUE_BOTTOM } qbt_queue_move;
qbt_result qbt_queue(qbt_session *session, const char *id, qbt_queue_move move);
/// Auto-managed torrents are the ones libtorrent's queue may start and stop.
qbt_result qbt_set_auto_managed(qbt_session *session, const char *id, bool on);
qbt_result qbt_set_super_seeding(qbt_session *session, const char *id, bool on);
qbt_result qbt_set_connection_limits(qbt_session *session, const char *id, int32_t connections, int32_t uploads);
/// Renames file `index` to `path` (relative to the save path); the result arrives as FILE_RENAMED(_FAILED).
qbt_result qbt_rename_file(qbt_session *session, const char *id, int32_t index, const char *path);
/// Moves the data to `path`; STORAGE_MOVED or STORAGE_MOVE_FAILED follows.
qbt_result qbt_move_storage(qbt_session *session, const char *id, const char *path);

typedef struct {
    const char *ip;
    uint16_t port;
    const char *client;
    const char *peer_id;        // the raw id, printable
    const char *connection;     // "BT" or "uTP"
    const char *flags;          // qBittorrent's letters, space separated
    const char *flags_desc;
    const char *files;          // files of the piece being downloaded from the peer, newline separated
    float progress;
    float relevance;
    int32_t download_rate;
    int32_t upload_rate;
    int64_t downloaded;
    int64_t uploaded;
} qbt_peer;

typedef void (*qbt_peer_fn)(void *context, const qbt_peer *peer);
qbt_result qbt_get_peers(qbt_session *session, const char *id, qbt_peer_fn fn, void *context);

// MARK: session-wide

/// Which peers the global rate limits apply to: LAN (and loopback) peers only when limit_lan, uTP peers only
/// when limit_utp (libtorrent's default exempts local peers).
void qbt_set_rate_limit_scope(qbt_session *session, bool limit_lan, bool limit_utp);

/// Blocks an address from now on (added to the session's IP filter). False for an unparsable address.
bool qbt_ban_ip(qbt_session *session, const char *ip);
/// Makes libtorrent forget it has these pieces and gives them priority 0: the torrent stays in the session with its
/// peers (torrent_handle::forget_pieces of qbtd's patched libtorrent). Calls `fn` once, after libtorrent is done, with
/// the pieces it forgot: only their data may go (a piece that passed its check but is not yet on disk stays had).
qbt_result qbt_forget_pieces(qbt_session *session, const char *id, const int32_t *pieces, size_t count, qbt_ints_fn fn,
                             void *context);
/// Whether a stream reads the torrent (torrent_handle::set_streaming of qbtd's patched libtorrent): meanwhile it keeps
/// its seeds when it has every piece it wants and never says it is upload-only.
qbt_result qbt_set_streaming(qbt_session *session, const char *id, bool on);

/// Frees a file's blocks in [offset, offset + length) and keeps its size (fallocate PUNCH_HOLE).
bool qbt_punch_hole(const char *path, int64_t offset, int64_t length);

/// Every torrent forgets its peers (connections closed, peer list cleared, failure counts gone) and announces
/// again: after the network binding or the proxy changed, peers that failed by the old route are tried anew.
void qbt_reset_peers_all(qbt_session *session);

/// Pauses the whole session (every torrent stops transferring, their own states untouched) or resumes it
/// (qBittorrent 5.3's transfer/pauseSession).
void qbt_set_session_paused(qbt_session *session, bool paused);

/// Replaces the session's IP filter (bans included) with these blocked ranges: `v4` holds `v4_count` pairs of
/// [first, last] addresses in host byte order, `v6` holds `v6_count` pairs of 16-byte addresses in network order.
bool qbt_set_ip_filter(qbt_session *session, const uint32_t *v4, size_t v4_count, const uint8_t *v6, size_t v6_count);

typedef struct {
    int64_t dht_nodes;
    int64_t recv_bytes;         // all bytes this session, payload and protocol
    int64_t sent_bytes;
    int64_t wasted_bytes;
    int64_t queued_disk_jobs;
    int64_t peer_connections;
    int64_t request_latency;    // disk.request_latency (microseconds; 5.3's server_state.request_latency)
    int64_t queued_tracker_announces;
    bool listening;
    bool has_incoming;
} qbt_session_counters;

/// The latest counters (refreshed by qbt_post_session_stats; the answer is consumed by the event drain).
void qbt_get_session_counters(qbt_session *session, qbt_session_counters *out);
void qbt_post_session_stats(qbt_session *session);

// MARK: creating torrents (also used by tests to make seeds)


/// What qBittorrent's torrent creator takes. format: 0 hybrid, 1 v1 only, 2 v2 only. trackers: one URL per line,
/// an empty line starts the next tier; url_seeds: one per line. Strings may be NULL.
typedef struct {
    int32_t piece_size;
    int32_t format;
    bool is_private;
    const char *comment;
    const char *source;
    const char *trackers;
    const char *url_seeds;
    bool ignore_dotfiles;  // 5.3's ignoreDotfiles: files and folders whose names start with '.' are left out
} qbt_create_options;

/// Called after each piece is hashed; returning false stops the creation (QBT_ERR_FAILED, "cancelled").
typedef bool (*qbt_progress_fn)(void *context, int32_t done, int32_t total);

/// Hashes a file or directory into a .torrent with qBittorrent's options, reporting progress; reports the .torrent
/// bytes and the piece size.
qbt_result qbt_create_torrent_ex(const char *path, const qbt_create_options *options, qbt_progress_fn progress,
                                 qbt_bytes_fn fn, void *context, int32_t *piece_size_out, char **error);

/// The certificate, key and DH parameters an SSL torrent presents to its peers (PEM).
qbt_result qbt_set_ssl_certificate(qbt_session *session, const char *id, const char *certificate,
                                   const char *private_key, const char *dh_params);

/// Versions of the libraries this build runs on (static strings; OpenSSL's is `qbt_openssl_version` in CCrypto).
const char *qbt_libtorrent_version(void);
const char *qbt_boost_version(void);

void qbt_free(void *pointer);

#ifdef __cplusplus
}
#endif

#endif
