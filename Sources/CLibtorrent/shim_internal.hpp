// The libtorrent shim's insides, shared by its translation units and not part of its public header: libtorrent's
// headers, the opaque handles' definitions, the helpers more than one file uses and the entry-point guards.
// Every libtorrent call the Swift engine makes goes through the shim; each entry point catches every exception,
// since none may unwind into Swift.
#pragma once

#include "qbt_libtorrent.h"
#include "shim_strings.h"

#include <libtorrent/add_torrent_params.hpp>
#include <libtorrent/alert_types.hpp>
#include <libtorrent/bencode.hpp>
#include <libtorrent/create_torrent.hpp>
#include <libtorrent/extensions/smart_ban.hpp>
#include <libtorrent/extensions/ut_metadata.hpp>
#include <libtorrent/extensions/ut_pex.hpp>
#include <libtorrent/magnet_uri.hpp>
#include <libtorrent/read_resume_data.hpp>
#include <libtorrent/session.hpp>
#include <libtorrent/session_stats.hpp>
#include <libtorrent/ip_filter.hpp>
#include <libtorrent/peer_info.hpp>
#include <libtorrent/announce_entry.hpp>
#include <libtorrent/settings_pack.hpp>
#include <libtorrent/torrent_handle.hpp>
#include <libtorrent/torrent_info.hpp>
#include <libtorrent/torrent_status.hpp>
#include <libtorrent/write_resume_data.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <atomic>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

// Helpers used by more than one of the shim's files: inline here, or declared here and defined in one file.
namespace qbt_shim {

inline void set_error(char **error, const std::string &message) {
    if (error) *error = dup_string(message);
}

// Lowercase hex of a sha1 or sha256 digest.
template <typename Digest>
std::string hex(const Digest &h) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(static_cast<size_t>(h.size()) * 2);
    for (auto byte : h) {
        auto b = static_cast<unsigned char>(byte);
        out.push_back(digits[b >> 4]);
        out.push_back(digits[b & 15]);
    }
    return out;
}

// The full metainfo, v2 piece layers included when the torrent has them (torrent_file() drops them).
inline std::shared_ptr<const lt::torrent_info> metainfo(const lt::torrent_handle &h) {
    std::shared_ptr<const lt::torrent_info> ti = h.torrent_file_with_hashes();
    return ti ? ti : h.torrent_file();
}

// qBittorrent's torrent id: v1 hash, or the truncated v2 hash for v2 and hybrid torrents.
inline std::string torrent_id(const lt::info_hash_t &hashes) {
    if (!hashes.has_v1() && !hashes.has_v2()) return {};
    return hex(hashes.get_best());
}

inline void copy_id(char out[QBT_ID_LEN], const std::string &id) {
    std::memset(out, 0, QBT_ID_LEN);
    std::memcpy(out, id.data(), std::min<size_t>(id.size(), QBT_ID_LEN - 1));
}

inline std::string params_id(const lt::add_torrent_params &atp) {
    if (atp.ti) return torrent_id(atp.ti->info_hashes());
    return torrent_id(atp.info_hashes);
}

// qBittorrent 5.1's TorrentImpl tracker status: each listen-socket endpoint, for each protocol the torrent has, is
// updating, failed (tracker error, skipped, or not working), verified-working or not contacted; the tracker's row
// folds them (1 not contacted, 2 working, 3 updating, 4 not working, 5 tracker error, 6 unreachable). The message is
// that of an endpoint in the row's state.
struct folded_endpoint {
    std::string name;
    int bt_version = 1;
    bool updating = false;
    int status = 1;
    std::string message;
    int seeds = -1, leeches = -1, downloaded = -1;
    std::int64_t next_announce = 0, min_announce = 0;
};

struct folded_tracker {
    int status = 1;
    std::string message;
    int peers = -1, seeds = -1, leeches = -1, downloaded = -1;
    bool updating = false;
    std::int64_t next_announce = 0, min_announce = 0;
    std::vector<folded_endpoint> endpoints;
};

// Defined in shim_reports.cpp; the alert translator folds a tracker's status after each announce.
folded_tracker fold_tracker(const lt::announce_entry &entry, const lt::info_hash_t &hashes);

// Defined in shim_reports.cpp; the alert translator reports the statuses a state-update alert carries.
void report_status(const lt::torrent_status &st, qbt_status_fn fn, void *context);

}  // namespace qbt_shim

// The public header's opaque handles.

struct qbt_settings {
    lt::settings_pack pack;
};

struct qbt_torrent {
    lt::add_torrent_params atp;
};

struct qbt_session {
    lt::session session;
    std::mutex mutex;  // guards handles; the Swift actor already serializes calls, this keeps the shim honest
    std::unordered_map<std::string, lt::torrent_handle> handles;

    explicit qbt_session(lt::session_params params) : session(std::move(params)) {}

    // State-update alerts drained so far: a poster waits until it passes the count of its own posts.
    std::atomic<uint64_t> state_updates_seen{0};

    // The latest session counters, written by the drain, read by API calls.
    std::mutex counters_mutex;
    qbt_session_counters counters{};
    lt::ip_filter filter;

    void store_counters(lt::span<std::int64_t const> values) {
        static const int dht = lt::find_metric_idx("dht.dht_nodes");
        static const int recv = lt::find_metric_idx("net.recv_bytes");
        static const int sent = lt::find_metric_idx("net.sent_bytes");
        static const int failed = lt::find_metric_idx("net.recv_failed_bytes");
        static const int redundant = lt::find_metric_idx("net.recv_redundant_bytes");
        static const int disk_jobs = lt::find_metric_idx("disk.queued_disk_jobs");
        static const int peers = lt::find_metric_idx("peer.num_peers_connected");
        static const int incoming = lt::find_metric_idx("net.has_incoming_connections");
        static const int latency = lt::find_metric_idx("disk.request_latency");
        static const int announces = lt::find_metric_idx("tracker.num_queued_tracker_announces");
        auto get = [&](int i) -> std::int64_t { return i >= 0 && i < values.size() ? values[i] : 0; };
        std::lock_guard<std::mutex> lock(counters_mutex);
        counters.dht_nodes = get(dht);
        counters.recv_bytes = get(recv);
        counters.sent_bytes = get(sent);
        counters.wasted_bytes = get(failed) + get(redundant);
        counters.queued_disk_jobs = get(disk_jobs);
        counters.peer_connections = get(peers);
        counters.request_latency = get(latency);
        counters.queued_tracker_announces = get(announces);
        counters.has_incoming = get(incoming) != 0;
    }

    lt::torrent_handle find(const char *id) {
        std::lock_guard<std::mutex> lock(mutex);
        auto it = handles.find(id ? id : "");
        if (it == handles.end() || !it->second.is_valid()) return {};
        return it->second;
    }
};

// An entry point's body with every exception caught (QBT_ERR_FAILED); the second finds the torrent `id` first.
#define QBT_GUARD(...)                  \
    try {                               \
        __VA_ARGS__                     \
    } catch (const std::exception &) {  \
        return QBT_ERR_FAILED;          \
    } catch (...) {                     \
        return QBT_ERR_FAILED;          \
    }

#define QBT_WITH_HANDLE(...)                            \
    QBT_GUARD({                                         \
        auto h = session->find(id);                     \
        if (!h.is_valid()) return QBT_ERR_NOT_FOUND;    \
        __VA_ARGS__;                                    \
        return QBT_OK;                                  \
    })
