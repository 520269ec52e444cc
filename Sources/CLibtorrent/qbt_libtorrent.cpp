// The libtorrent shim: every libtorrent call the Swift engine makes goes through here.
// Each entry point catches every exception, since none may unwind into Swift.
#include "qbt_libtorrent.h"
#include "shim_strings.h"

#include <cstring>

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

#include <boost/version.hpp>
#include <libtorrent/version.hpp>

#include <fcntl.h>
#include <pthread.h>
#include <linux/falloc.h>
#include <unistd.h>

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

namespace {

void set_error(char **error, const std::string &message) {
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
std::shared_ptr<const lt::torrent_info> metainfo(const lt::torrent_handle &h) {
    std::shared_ptr<const lt::torrent_info> ti = h.torrent_file_with_hashes();
    return ti ? ti : h.torrent_file();
}

// qBittorrent's torrent id: v1 hash, or the truncated v2 hash for v2 and hybrid torrents.
std::string torrent_id(const lt::info_hash_t &hashes) {
    if (!hashes.has_v1() && !hashes.has_v2()) return {};
    return hex(hashes.get_best());
}

void copy_id(char out[QBT_ID_LEN], const std::string &id) {
    std::memset(out, 0, QBT_ID_LEN);
    std::memcpy(out, id.data(), std::min<size_t>(id.size(), QBT_ID_LEN - 1));
}

int64_t epoch(lt::time_point t) {
    if (t == lt::time_point{}) return 0;
    auto now = lt::clock_type::now();
    auto age = std::chrono::duration_cast<std::chrono::seconds>(now - t).count();
    return static_cast<int64_t>(std::time(nullptr)) - age;
}

// Turns one of libtorrent's torrent-plugin factories into a session plugin.
struct torrent_plugin_factory final : lt::plugin {
    using factory = std::shared_ptr<lt::torrent_plugin> (*)(const lt::torrent_handle &, lt::client_data_t);
    explicit torrent_plugin_factory(factory f) : make(f) {}
    std::shared_ptr<lt::torrent_plugin> new_torrent(const lt::torrent_handle &h, lt::client_data_t data) override {
        return make(h, data);
    }
    factory make;
};

}  // namespace

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
        auto get = [&](int i) -> std::int64_t { return i >= 0 && i < values.size() ? values[i] : 0; };
        std::lock_guard<std::mutex> lock(counters_mutex);
        counters.dht_nodes = get(dht);
        counters.recv_bytes = get(recv);
        counters.sent_bytes = get(sent);
        counters.wasted_bytes = get(failed) + get(redundant);
        counters.queued_disk_jobs = get(disk_jobs);
        counters.peer_connections = get(peers);
        counters.has_incoming = get(incoming) != 0;
    }

    lt::torrent_handle find(const char *id) {
        std::lock_guard<std::mutex> lock(mutex);
        auto it = handles.find(id ? id : "");
        if (it == handles.end() || !it->second.is_valid()) return {};
        return it->second;
    }
};

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

extern "C" {

// MARK: settings

qbt_settings *qbt_settings_new(void) { return new (std::nothrow) qbt_settings(); }

bool qbt_settings_set(qbt_settings *settings, const char *name, const char *value, char **error) {
    try {
        int key = lt::setting_by_name(name);
        if (key < 0) {
            set_error(error, std::string("unknown libtorrent setting: ") + name);
            return false;
        }
        switch (key & lt::settings_pack::type_mask) {
        case lt::settings_pack::string_type_base:
            settings->pack.set_str(key, value);
            return true;
        case lt::settings_pack::int_type_base: {
            char *end = nullptr;
            long long v = std::strtoll(value, &end, 10);
            if (!end || *end != '\0' || *value == '\0') {
                set_error(error, std::string(name) + " needs an integer, not '" + value + "'");
                return false;
            }
            settings->pack.set_int(key, static_cast<int>(v));
            return true;
        }
        case lt::settings_pack::bool_type_base: {
            std::string v(value);
            if (v != "true" && v != "false") {
                set_error(error, std::string(name) + " needs true or false, not '" + value + "'");
                return false;
            }
            settings->pack.set_bool(key, v == "true");
            return true;
        }
        }
        set_error(error, std::string("unsupported setting type: ") + name);
        return false;
    } catch (const std::exception &e) {
        set_error(error, e.what());
        return false;
    }
}

void qbt_settings_free(qbt_settings *settings) { delete settings; }

// MARK: session

qbt_session *qbt_session_new(const qbt_settings *settings, bool enable_pex, char **error) {
    try {
        lt::settings_pack pack = settings ? settings->pack : lt::settings_pack();
        // The engine reacts to these alerts; a big queue means none is dropped between two drains.
        pack.set_int(lt::settings_pack::alert_mask, lt::alert_category::status | lt::alert_category::error |
                                                        lt::alert_category::storage |
                                                        lt::alert_category::piece_progress |
                                                        lt::alert_category::file_progress |
                                                        lt::alert_category::tracker |
                                                        lt::alert_category::ip_block);
        if (pack.get_int(lt::settings_pack::alert_queue_size) < 100000)
            pack.set_int(lt::settings_pack::alert_queue_size, 100000);
        // Extensions are listed explicitly so that PeX can be left out (it cannot be turned off later).
        std::vector<std::shared_ptr<lt::plugin>> extensions{
            std::make_shared<torrent_plugin_factory>(lt::create_ut_metadata_plugin),
            std::make_shared<torrent_plugin_factory>(lt::create_smart_ban_plugin)};
        if (enable_pex) extensions.push_back(std::make_shared<torrent_plugin_factory>(lt::create_ut_pex_plugin));
        lt::session_params params(std::move(pack), std::move(extensions));
        // libtorrent's threads (network, then disk and hashing, which the network thread starts) take the name of
        // the thread that starts them: "libtorrent" here, so `top -H` and the benchmarks tell them from qbtd's own.
        char caller[16] = {0};
        bool named = pthread_getname_np(pthread_self(), caller, sizeof caller) == 0;
        pthread_setname_np(pthread_self(), "libtorrent");
        auto *session = new qbt_session(std::move(params));
        if (named) pthread_setname_np(pthread_self(), caller);
        return session;
    } catch (const std::exception &e) {
        set_error(error, e.what());
        return nullptr;
    }
}

bool qbt_session_apply(qbt_session *session, const qbt_settings *settings, char **error) {
    try {
        session->session.apply_settings(settings->pack);
        return true;
    } catch (const std::exception &e) {
        set_error(error, e.what());
        return false;
    }
}

void qbt_session_free(qbt_session *session) {
    if (!session) return;
    try {
        session->session.set_alert_notify([] {});
        // abort() hands back a proxy whose destructor waits only for the network thread, not trackers.
        auto proxy = session->session.abort();
        delete session;
    } catch (...) {
    }
}

int qbt_session_listen_port(qbt_session *session) {
    try {
        return session->session.listen_port();
    } catch (...) {
        return 0;
    }
}

void qbt_session_set_notify(qbt_session *session, qbt_notify_fn fn, void *context) {
    session->session.set_alert_notify([fn, context] { fn(context); });
}

// MARK: events

// qBittorrent 5.1's TorrentImpl tracker status: each listen-socket endpoint, for each protocol the torrent has, is
// updating, failed (tracker error, skipped, or not working), verified-working or not contacted; the tracker's row
// folds them (1 not contacted, 2 working, 3 updating, 4 not working, 5 tracker error, 6 unreachable). The message is
// that of an endpoint in the row's state.
struct folded_tracker {
    int status = 1;
    std::string message;
    int peers = -1, seeds = -1, leeches = -1, downloaded = -1;
};

static folded_tracker fold_tracker(const lt::announce_entry &entry, const lt::info_hash_t &hashes) {
    std::vector<lt::protocol_version> protocols;
    if (hashes.has_v1()) protocols.push_back(lt::protocol_version::V1);
    if (hashes.has_v2()) protocols.push_back(lt::protocol_version::V2);
    folded_tracker out;
    int endpoints = 0, updating = 0, working = 0, not_working = 0, tracker_error = 0, unreachable = 0;
    std::vector<std::pair<int, std::string>> messages;  // (endpoint state, message)
    for (const auto &endpoint : entry.endpoints) {
        for (const auto version : protocols) {
            const auto &ih = endpoint.info_hashes[version];
            ++endpoints;
            int state;
            if (ih.updating) { state = 3; ++updating; }
            else if (ih.fails > 0) {
                if (ih.last_error == lt::errors::tracker_failure) { state = 5; ++tracker_error; }
                else if (ih.last_error == lt::errors::announce_skipped) { state = 6; ++unreachable; }
                else { state = 4; ++not_working; }
            } else if (entry.verified) { state = 2; ++working; }
            else state = 1;
            std::string message = !ih.message.empty() ? ih.message : ih.last_error ? ih.last_error.message() : "";
            messages.emplace_back(state, message);
            out.seeds = std::max(out.seeds, ih.scrape_complete);
            out.leeches = std::max(out.leeches, ih.scrape_incomplete);
            out.downloaded = std::max(out.downloaded, ih.scrape_downloaded);
        }
    }
    if (endpoints > 0) {
        if (updating > 0) out.status = 3;
        else if (working > 0) out.status = 2;
        else if (tracker_error > 0) out.status = 5;
        else if (unreachable == endpoints) out.status = 6;
        else if (unreachable + not_working == endpoints) out.status = 4;
    }
    for (const auto &m : messages) {
        if (m.first == out.status && !m.second.empty()) { out.message = m.second; break; }
    }
    if (out.seeds >= 0 || out.leeches >= 0) out.peers = std::max(0, out.seeds) + std::max(0, out.leeches);
    return out;
}

static std::string alert_torrent_id(const lt::torrent_alert *a) {
    try {
        return torrent_id(a->handle.info_hashes());
    } catch (...) {
        return {};
    }
}

static std::string params_id(const lt::add_torrent_params &atp) {
    if (atp.ti) return torrent_id(atp.ti->info_hashes());
    return torrent_id(atp.info_hashes);
}

static void report_status(const lt::torrent_status &st, qbt_status_fn fn, void *context);

// The trackers and web seeds a torrent added with these parameters has, as libtorrent's torrent constructor makes
// them (the .torrent's, then the parameters' ones, unless resume data said to override them), one per line:
// "t <url>" or "w <url>". Read from the parameters, so an add costs no round trip to the network thread.
static std::string added_sources(const lt::add_torrent_params &p) {
    std::string out;
    std::vector<std::string> trackers;
    auto add_tracker = [&](const std::string &url) {
        if (std::find(trackers.begin(), trackers.end(), url) == trackers.end()) trackers.push_back(url);
    };
    if (p.ti && !(p.flags & lt::torrent_flags::override_trackers)) {
        auto list = p.ti->trackers();
        std::stable_sort(list.begin(), list.end(), [](const lt::announce_entry &a, const lt::announce_entry &b) {
            return a.tier < b.tier;
        });
        for (const auto &t : list) add_tracker(t.url);
    }
    for (const auto &url : p.trackers) add_tracker(url);
    for (const auto &url : trackers) out += "t " + url + "\n";
    std::vector<std::string> seeds;
    if (p.ti && !(p.flags & lt::torrent_flags::override_web_seeds))
        for (const auto &ws : p.ti->web_seeds())
            if (ws.type == lt::web_seed_entry::url_seed) seeds.push_back(ws.url);
    for (const auto &url : p.url_seeds)
        if (std::find(seeds.begin(), seeds.end(), url) == seeds.end()) seeds.push_back(url);
    for (const auto &url : seeds) out += "w " + url + "\n";
    return out;
}

void qbt_get_status_many(qbt_session *session, const char *const *ids, size_t count, qbt_status_fn fn, void *context) {
    try {
        std::vector<lt::torrent_status> statuses;
        statuses.reserve(count);
        for (size_t i = 0; i < count; ++i) {
            auto h = session->find(ids[i]);
            if (!h.is_valid()) continue;
            lt::torrent_status st;
            st.handle = h;
            statuses.push_back(std::move(st));
        }
        // One trip to the network thread for all of them, touching only them (a restore brings thousands; a
        // session of 50,000 is not walked for each batch).
        session->session.refresh_torrent_status(&statuses, lt::torrent_handle::query_name |
                                                               lt::torrent_handle::query_save_path |
                                                               lt::torrent_handle::query_torrent_file |
                                                               lt::torrent_handle::query_distributed_copies);
        for (auto &st : statuses)  // one removed meanwhile was not filled in: it has no hashes
            if (st.info_hashes.has_v1() || st.info_hashes.has_v2()) report_status(st, fn, context);
    } catch (...) {
    }
}

uint64_t qbt_state_updates_seen(qbt_session *session) { return session->state_updates_seen.load(std::memory_order_relaxed); }

void qbt_post_torrent_updates(qbt_session *session) {
    try {
        session->session.post_torrent_updates(lt::torrent_handle::query_name | lt::torrent_handle::query_save_path |
                                              lt::torrent_handle::query_torrent_file |
                                              lt::torrent_handle::query_distributed_copies);
    } catch (...) {
    }
}

int qbt_session_pop_events(qbt_session *session, qbt_event_fn fn, qbt_status_fn status_fn, void *context) {
    std::vector<lt::alert *> alerts;
    try {
        session->session.pop_alerts(&alerts);
    } catch (...) {
        return 0;
    }
    for (lt::alert *alert : alerts) {
        try {
            qbt_event ev;
            std::memset(&ev, 0, sizeof ev);
            ev.piece = -1;
            // The id and the message are made only for alerts that become events (a session-stats alert's
            // message prints every counter; the drain runs each second).
            std::string message;
            std::vector<char> buffer;
            std::string id;

            switch (alert->type()) {
            case lt::add_torrent_alert::alert_type: {
                auto *a = static_cast<lt::add_torrent_alert *>(alert);
                id = params_id(a->params);
                if (a->error) {
                    ev.kind = QBT_EVENT_ADD_FAILED;
                    ev.state = a->error == lt::errors::duplicate_torrent ? 1 : 0;
                    message = a->error.message();
                    break;
                }
                {
                    std::lock_guard<std::mutex> lock(session->mutex);
                    session->handles[id] = a->handle;
                }
                ev.kind = QBT_EVENT_ADDED;
                std::string sources = added_sources(a->params);
                buffer.assign(sources.begin(), sources.end());
                break;
            }
            case lt::metadata_received_alert::alert_type: ev.kind = QBT_EVENT_METADATA_RECEIVED; break;
            case lt::torrent_finished_alert::alert_type: ev.kind = QBT_EVENT_FINISHED; break;
            case lt::torrent_removed_alert::alert_type:
                ev.kind = QBT_EVENT_REMOVED;
                id = torrent_id(static_cast<lt::torrent_removed_alert *>(alert)->info_hashes);
                break;
            case lt::torrent_deleted_alert::alert_type:
                ev.kind = QBT_EVENT_FILES_DELETED;
                id = torrent_id(static_cast<lt::torrent_deleted_alert *>(alert)->info_hashes);
                break;
            case lt::torrent_delete_failed_alert::alert_type:
                ev.kind = QBT_EVENT_DELETE_FAILED;
                id = torrent_id(static_cast<lt::torrent_delete_failed_alert *>(alert)->info_hashes);
                break;
            case lt::save_resume_data_alert::alert_type: {
                auto *a = static_cast<lt::save_resume_data_alert *>(alert);
                ev.kind = QBT_EVENT_RESUME_DATA;
                buffer = lt::write_resume_data_buf(a->params);
                break;
            }
            case lt::save_resume_data_failed_alert::alert_type: {
                auto *a = static_cast<lt::save_resume_data_failed_alert *>(alert);
                ev.kind = QBT_EVENT_RESUME_DATA_FAILED;
                ev.state = a->error == lt::errors::resume_data_not_modified ? 1 : 0;
                break;
            }
            case lt::piece_finished_alert::alert_type:
                ev.kind = QBT_EVENT_PIECE_FINISHED;
                ev.piece = static_cast<int32_t>(static_cast<lt::piece_finished_alert *>(alert)->piece_index);
                break;
            case lt::state_changed_alert::alert_type:
                ev.kind = QBT_EVENT_STATE_CHANGED;
                ev.state = static_cast<int32_t>(static_cast<lt::state_changed_alert *>(alert)->state);
                break;
            case lt::torrent_paused_alert::alert_type: ev.kind = QBT_EVENT_PAUSED; break;
            case lt::torrent_resumed_alert::alert_type: ev.kind = QBT_EVENT_RESUMED; break;
            case lt::torrent_error_alert::alert_type: ev.kind = QBT_EVENT_TORRENT_ERROR; break;
            case lt::file_error_alert::alert_type: ev.kind = QBT_EVENT_FILE_ERROR; break;
            case lt::hash_failed_alert::alert_type:
                ev.kind = QBT_EVENT_HASH_FAILED;
                ev.piece = static_cast<int32_t>(static_cast<lt::hash_failed_alert *>(alert)->piece_index);
                break;
            case lt::torrent_checked_alert::alert_type: ev.kind = QBT_EVENT_CHECKED; break;
            case lt::read_piece_alert::alert_type: {
                auto *a = static_cast<lt::read_piece_alert *>(alert);
                ev.kind = QBT_EVENT_READ_PIECE;
                ev.piece = static_cast<int32_t>(a->piece);
                if (!a->error && a->buffer) {
                    ev.data = reinterpret_cast<const uint8_t *>(a->buffer.get());
                    ev.size = static_cast<size_t>(a->size);
                }
                break;
            }
            case lt::listen_succeeded_alert::alert_type: {
                auto *a = static_cast<lt::listen_succeeded_alert *>(alert);
                if (a->socket_type != lt::socket_type_t::tcp) continue;
                ev.kind = QBT_EVENT_LISTEN_SUCCEEDED;
                ev.state = a->port;
                break;
            }
            case lt::listen_failed_alert::alert_type: {
                auto *a = static_cast<lt::listen_failed_alert *>(alert);
                ev.kind = QBT_EVENT_LISTEN_FAILED;
                ev.state = a->port;
                break;
            }
            case lt::storage_moved_alert::alert_type: ev.kind = QBT_EVENT_STORAGE_MOVED; break;
            case lt::storage_moved_failed_alert::alert_type: ev.kind = QBT_EVENT_STORAGE_MOVE_FAILED; break;
            case lt::alerts_dropped_alert::alert_type: ev.kind = QBT_EVENT_ALERTS_DROPPED; break;
            case lt::file_renamed_alert::alert_type: {
                auto *a = static_cast<lt::file_renamed_alert *>(alert);
                ev.kind = QBT_EVENT_FILE_RENAMED;
                ev.piece = static_cast<int32_t>(a->index);
                message = a->new_name();
                break;
            }
            case lt::file_completed_alert::alert_type:
                ev.kind = QBT_EVENT_FILE_COMPLETED;
                ev.piece = static_cast<int32_t>(static_cast<lt::file_completed_alert *>(alert)->index);
                break;
            case lt::file_rename_failed_alert::alert_type:
                ev.kind = QBT_EVENT_FILE_RENAME_FAILED;
                ev.piece = static_cast<int32_t>(static_cast<lt::file_rename_failed_alert *>(alert)->index);
                break;
            case lt::tracker_reply_alert::alert_type:
            case lt::tracker_warning_alert::alert_type:
            case lt::tracker_error_alert::alert_type: {
                // The tracker's folded status after this announce (what `qbt_get_trackers` would say for it).
                auto *a = static_cast<lt::tracker_alert *>(alert);
                const std::string url = a->tracker_url();
                const auto trackers = a->handle.trackers();
                const auto entry = std::find_if(trackers.begin(), trackers.end(),
                                                [&](const lt::announce_entry &e) { return e.url == url; });
                if (entry == trackers.end()) continue;  // removed since
                const folded_tracker folded = fold_tracker(*entry, a->handle.info_hashes());
                ev.kind = QBT_EVENT_TRACKER_STATUS;
                ev.state = folded.status;
                message = folded.message;
                buffer.assign(url.begin(), url.end());
                break;
            }
            case lt::peer_blocked_alert::alert_type: {
                auto *a = static_cast<lt::peer_blocked_alert *>(alert);
                ev.kind = QBT_EVENT_PEER_BLOCKED;
                message = a->endpoint.address().to_string();
                break;
            }
            case lt::session_stats_alert::alert_type:
                session->store_counters(static_cast<lt::session_stats_alert *>(alert)->counters());
                continue;
            case lt::state_update_alert::alert_type:
                for (const auto &st : static_cast<lt::state_update_alert *>(alert)->status) report_status(st, status_fn, context);
                session->state_updates_seen.fetch_add(1, std::memory_order_relaxed);
                continue;
            default: continue;
            }
            if (!buffer.empty()) {
                ev.data = reinterpret_cast<const uint8_t *>(buffer.data());
                ev.size = buffer.size();
            }
            if (id.empty())
                if (auto *ta = dynamic_cast<lt::torrent_alert *>(alert)) id = alert_torrent_id(ta);
            switch (ev.kind) {
            case QBT_EVENT_DELETE_FAILED: case QBT_EVENT_TORRENT_ERROR: case QBT_EVENT_FILE_ERROR:
            case QBT_EVENT_LISTEN_FAILED: case QBT_EVENT_STORAGE_MOVE_FAILED: case QBT_EVENT_ALERTS_DROPPED:
            case QBT_EVENT_FILE_RENAME_FAILED: case QBT_EVENT_RESUME_DATA_FAILED:
            case QBT_EVENT_READ_PIECE:
                if (message.empty()) message = alert->message();
                break;
            default: break;
            }
            copy_id(ev.id, id);
            ev.message = message.c_str();
            fn(context, &ev);
        } catch (...) {
            // one bad alert must not stop the drain
        }
    }
    return static_cast<int>(alerts.size());
}

// MARK: adding

static qbt_result load_params(const uint8_t *torrent, size_t size, const char *magnet, lt::add_torrent_params &atp,
                              std::string &error) {
    lt::error_code ec;
    if (torrent) {
        if (size == 0) {
            error = "empty torrent file";
            return QBT_ERR_INVALID;
        }
        auto ti = std::make_shared<lt::torrent_info>(
            lt::span<char const>(reinterpret_cast<const char *>(torrent), static_cast<std::ptrdiff_t>(size)), ec,
            lt::from_span);
        if (ec) {
            error = ec.message();
            return QBT_ERR_INVALID;
        }
        atp.ti = std::move(ti);
        return QBT_OK;
    }
    if (magnet) {
        lt::parse_magnet_uri(magnet, atp, ec);
        if (ec || (!atp.info_hashes.has_v1() && !atp.info_hashes.has_v2())) {
            error = ec ? ec.message() : "magnet has no info-hash";
            return QBT_ERR_INVALID;
        }
        return QBT_OK;
    }
    error = "neither a torrent nor a magnet";
    return QBT_ERR_INVALID;
}


qbt_torrent *qbt_torrent_parse(const uint8_t *torrent, size_t size, const char *magnet, char id[QBT_ID_LEN],
                               char **name, char **error) {
    try {
        auto parsed = std::make_unique<qbt_torrent>();
        std::string message;
        if (load_params(torrent, size, magnet, parsed->atp, message) != QBT_OK) {
            set_error(error, message);
            return nullptr;
        }
        copy_id(id, params_id(parsed->atp));
        if (name) *name = dup_string(parsed->atp.ti ? parsed->atp.ti->name() : parsed->atp.name);
        return parsed.release();
    } catch (const std::exception &e) {
        set_error(error, e.what());
        return nullptr;
    }
}

void qbt_torrent_free(qbt_torrent *parsed) { delete parsed; }

void qbt_torrent_describe(const qbt_torrent *parsed, qbt_summary_fn fn, void *context) {
    try {
        const auto &atp = parsed->atp;
        const auto hashes = atp.ti ? atp.ti->info_hashes() : atp.info_hashes;
        const std::string v1 = hashes.has_v1() ? hex(hashes.v1) : "";
        const std::string v2 = hashes.has_v2() ? hex(hashes.v2) : "";
        std::vector<std::string> paths, trackers, seeds;
        std::vector<int64_t> sizes;
        std::vector<int32_t> tiers;
        qbt_torrent_summary out{};
        if (const auto &ti = atp.ti) {
            const auto &fs = ti->files();
            for (const auto f : fs.file_range()) {
                if (fs.pad_file_at(f)) continue;
                paths.push_back(fs.file_path(f));
                sizes.push_back(fs.file_size(f));
            }
            for (const auto &t : ti->trackers()) { trackers.push_back(t.url); tiers.push_back(t.tier); }
            for (const auto &w : ti->web_seeds()) seeds.push_back(w.url);
            out.has_metadata = true;
            out.is_private = ti->priv();
            out.total_size = ti->total_size();
            out.piece_length = ti->piece_length();
            out.num_pieces = ti->num_pieces();
            out.creation_date = ti->creation_date();
        } else {
            for (size_t i = 0; i < atp.trackers.size(); ++i) {
                trackers.push_back(atp.trackers[i]);
                tiers.push_back(i < atp.tracker_tiers.size() ? atp.tracker_tiers[i] : 0);
            }
            for (const auto &w : atp.url_seeds) seeds.push_back(w);
        }
        auto pointers = [](const std::vector<std::string> &strings) {
            std::vector<const char *> out;
            for (const auto &x : strings) out.push_back(x.c_str());
            return out;
        };
        const auto path_ptrs = pointers(paths), tracker_ptrs = pointers(trackers), seed_ptrs = pointers(seeds);
        const std::string name = atp.ti ? atp.ti->name() : atp.name;
        const std::string creator = atp.ti ? atp.ti->creator() : "";
        const std::string comment = atp.ti ? atp.ti->comment() : "";
        out.info_hash_v1 = v1.c_str();
        out.info_hash_v2 = v2.c_str();
        out.name = name.c_str();
        out.created_by = creator.c_str();
        out.comment = comment.c_str();
        out.file_count = paths.size();
        out.file_paths = path_ptrs.data();
        out.file_sizes = sizes.data();
        out.tracker_count = trackers.size();
        out.tracker_urls = tracker_ptrs.data();
        out.tracker_tiers = tiers.data();
        out.web_seed_count = seeds.size();
        out.web_seeds = seed_ptrs.data();
        fn(context, &out);
    } catch (...) {
        // a parsed torrent always describes; nothing reaches Swift if it cannot
    }
}

qbt_result qbt_add_async(qbt_session *session, const qbt_add_params *p, char id[QBT_ID_LEN], char **error) {
    try {
        lt::add_torrent_params atp;
        std::string message;
        if (p->resume && p->resume_size > 0) {
            lt::error_code ec;
            atp = lt::read_resume_data(
                lt::span<char const>(reinterpret_cast<const char *>(p->resume),
                                     static_cast<std::ptrdiff_t>(p->resume_size)),
                ec);
            // Resume data saved before metadata arrived has no info dict: fall back to the original source.
            if (ec || (!atp.ti && !atp.info_hashes.has_v1() && !atp.info_hashes.has_v2())) {
                atp = lt::add_torrent_params();
                if (load_params(p->torrent, p->torrent_size, p->magnet, atp, message) != QBT_OK) {
                    set_error(error, "unreadable fast-resume data and no usable source: " + message);
                    return QBT_ERR_INVALID;
                }
            } else if (!atp.ti && p->parsed && p->parsed->atp.ti) {
                atp.ti = p->parsed->atp.ti;
            } else if (!atp.ti && p->torrent && p->torrent_size > 0) {
                lt::add_torrent_params source;
                if (load_params(p->torrent, p->torrent_size, nullptr, source, message) == QBT_OK) atp.ti = source.ti;
            }
        } else if (p->parsed) {
            atp = p->parsed->atp;  // shares the parsed torrent_info: no second parse
        } else {
            qbt_result r = load_params(p->torrent, p->torrent_size, p->magnet, atp, message);
            if (r != QBT_OK) {
                set_error(error, message);
                return r;
            }
        }
        atp.save_path = p->save_path ? p->save_path : ".";
        if (p->name && *p->name && !atp.ti) atp.name = p->name;
        atp.flags |= lt::torrent_flags::duplicate_is_error | lt::torrent_flags::update_subscribe;
        atp.flags &= ~lt::torrent_flags::auto_managed;
        atp.flags &= ~lt::torrent_flags::paused;
        if (p->stopped) atp.flags |= lt::torrent_flags::paused;
        if (p->sequential) atp.flags |= lt::torrent_flags::sequential_download;
        else atp.flags &= ~lt::torrent_flags::sequential_download;
        if (p->seed_mode) atp.flags |= lt::torrent_flags::seed_mode;
        if (p->upload_mode) atp.flags |= lt::torrent_flags::upload_mode;
        // A new torrent takes the preference; a restored one keeps the mode its resume data holds.
        if (!p->resume) atp.storage_mode = p->preallocate ? lt::storage_mode_allocate : lt::storage_mode_sparse;
        atp.upload_limit = p->upload_limit > 0 ? p->upload_limit : -1;
        atp.download_limit = p->download_limit > 0 ? p->download_limit : -1;
        if (p->auto_managed && !p->stopped) atp.flags |= lt::torrent_flags::auto_managed;
        if (p->super_seeding) atp.flags |= lt::torrent_flags::super_seeding;
        else atp.flags &= ~lt::torrent_flags::super_seeding;
        atp.max_connections = p->max_connections > 0 ? p->max_connections : -1;
        atp.max_uploads = p->max_uploads > 0 ? p->max_uploads : -1;

        copy_id(id, params_id(atp));
        session->session.async_add_torrent(std::move(atp));  // the handle arrives with the add alert
        return QBT_OK;
    } catch (const std::exception &e) {
        set_error(error, e.what());
        return QBT_ERR_FAILED;
    }
}

// MARK: per-torrent control

qbt_result qbt_remove(qbt_session *session, const char *id, bool delete_files) {
    QBT_GUARD({
        auto h = session->find(id);
        if (!h.is_valid()) return QBT_ERR_NOT_FOUND;
        session->session.remove_torrent(h, delete_files ? lt::session::delete_files : lt::remove_flags_t{});
        std::lock_guard<std::mutex> lock(session->mutex);
        session->handles.erase(id);
        return QBT_OK;
    })
}

qbt_result qbt_forget_pieces(qbt_session *session, const char *id, const int32_t *pieces, size_t count, qbt_ints_fn fn,
                             void *context) {
    QBT_GUARD({
        auto h = session->find(id);
        if (!h.is_valid()) return QBT_ERR_NOT_FOUND;
        std::shared_ptr<const lt::torrent_info> ti = metainfo(h);
        if (!ti) return QBT_ERR_INVALID;
        std::vector<lt::piece_index_t> asked;
        std::vector<std::pair<lt::piece_index_t, lt::download_priority_t>> unwanted;
        for (size_t i = 0; i < count; ++i) {
            if (pieces[i] < 0 || pieces[i] >= ti->num_pieces()) continue;
            asked.emplace_back(pieces[i]);
            unwanted.emplace_back(lt::piece_index_t(pieces[i]), lt::dont_download);
        }
        std::vector<int32_t> done;
        if (!asked.empty()) {
            // Unwanted first, so a torrent still downloading does not pick them again in between; a seed ignores
            // priorities, so they are set again once it is no longer one.
            h.prioritize_pieces(unwanted);
            // Patched libtorrent (contrib/libtorrent): returns once they are forgotten, with those it had.
            for (lt::piece_index_t p : h.forget_pieces(asked)) done.push_back(static_cast<int32_t>(p));
            h.prioritize_pieces(unwanted);
        }
        fn(context, done.data(), done.size());
        return QBT_OK;
    })
}

qbt_result qbt_set_streaming(qbt_session *session, const char *id, bool on) {
    QBT_WITH_HANDLE({ h.set_streaming(on); })  // patched libtorrent (contrib/libtorrent/stream-peers.patch)
}

bool qbt_punch_hole(const char *path, int64_t offset, int64_t length) {
    int fd = ::open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return false;
    bool ok = ::fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, offset, length) == 0;
    ::close(fd);
    return ok;
}

qbt_result qbt_pause(qbt_session *session, const char *id) {
    QBT_WITH_HANDLE({
        h.unset_flags(lt::torrent_flags::auto_managed);
        h.pause(lt::torrent_handle::graceful_pause);
    })
}

qbt_result qbt_resume(qbt_session *session, const char *id) { QBT_WITH_HANDLE(h.resume()) }

qbt_result qbt_recheck(qbt_session *session, const char *id) { QBT_WITH_HANDLE(h.force_recheck()) }

qbt_result qbt_connect_peer(qbt_session *session, const char *id, const char *ip, uint16_t port) {
    QBT_GUARD({
        auto h = session->find(id);
        if (!h.is_valid()) return QBT_ERR_NOT_FOUND;
        lt::error_code ec;
        auto address = lt::make_address(ip, ec);
        if (ec || port == 0) return QBT_ERR_INVALID;
        h.connect_peer(lt::tcp::endpoint(address, port));
        return QBT_OK;
    })
}

qbt_result qbt_set_sequential(qbt_session *session, const char *id, bool sequential) {
    QBT_WITH_HANDLE({
        if (sequential) h.set_flags(lt::torrent_flags::sequential_download);
        else h.unset_flags(lt::torrent_flags::sequential_download);
    })
}

qbt_result qbt_set_limits(qbt_session *session, const char *id, int32_t upload, int32_t download) {
    QBT_WITH_HANDLE({
        h.set_upload_limit(upload > 0 ? upload : -1);
        h.set_download_limit(download > 0 ? download : -1);
    })
}

qbt_result qbt_save_resume(qbt_session *session, const char *id, bool only_if_modified) {
    // Resume data never carries the info dict: the .torrent is stored apart (a magnet's as soon as its metadata
    // arrives) and the restore parses it; a copy in every resume blob would double what a restart reads, and
    // re-encoding it every interval for every downloading torrent would be most of what a save costs.
    QBT_WITH_HANDLE({
        h.save_resume_data(only_if_modified ? lt::torrent_handle::only_if_modified : lt::resume_data_flags_t{});
    })
}

int qbt_save_resume_all(qbt_session *session) {
    try {
        std::vector<lt::torrent_handle> handles;
        {
            std::lock_guard<std::mutex> lock(session->mutex);
            for (auto &entry : session->handles) handles.push_back(entry.second);
        }
        int asked = 0;
        for (auto &h : handles) {
            if (!h.is_valid()) continue;
            h.save_resume_data(lt::resume_data_flags_t{});  // no info dict: see qbt_save_resume
            ++asked;
        }
        return asked;
    } catch (...) {
        return 0;
    }
}

qbt_result qbt_set_piece_deadline(qbt_session *session, const char *id, int32_t piece, int32_t ms, bool alert) {
    QBT_WITH_HANDLE(h.set_piece_deadline(lt::piece_index_t(piece), ms,
                                         alert ? lt::torrent_handle::alert_when_available : lt::deadline_flags_t{}))
}

qbt_result qbt_reset_piece_deadline(qbt_session *session, const char *id, int32_t piece) {
    QBT_WITH_HANDLE(h.reset_piece_deadline(lt::piece_index_t(piece)))
}

qbt_result qbt_clear_piece_deadlines(qbt_session *session, const char *id) {
    QBT_WITH_HANDLE(h.clear_piece_deadlines())
}

qbt_result qbt_set_piece_priority(qbt_session *session, const char *id, int32_t piece, uint8_t priority) {
    QBT_WITH_HANDLE(h.piece_priority(lt::piece_index_t(piece), lt::download_priority_t(priority)))
}

qbt_result qbt_set_file_priority(qbt_session *session, const char *id, int32_t file, uint8_t priority) {
    QBT_WITH_HANDLE(h.file_priority(lt::file_index_t(file), lt::download_priority_t(priority)))
}

qbt_result qbt_set_pieces_priority(qbt_session *session, const char *id, int32_t first, int32_t count, uint8_t priority) {
    QBT_WITH_HANDLE({
        std::vector<std::pair<lt::piece_index_t, lt::download_priority_t>> pieces;
        pieces.reserve(static_cast<size_t>(std::max(0, count)));
        for (int32_t p = std::max(0, first); p < first + count; ++p)
            pieces.emplace_back(lt::piece_index_t(p), lt::download_priority_t(priority));
        if (!pieces.empty()) h.prioritize_pieces(pieces);
    })
}

qbt_result qbt_read_piece(qbt_session *session, const char *id, int32_t piece) {
    QBT_WITH_HANDLE(h.read_piece(lt::piece_index_t(piece)))
}

qbt_result qbt_have_piece(qbt_session *session, const char *id, int32_t piece, bool *have) {
    // True only once the piece passed its hash check and every block of it is written (libtorrent 2.0's picker
    // counts a piece as had when both are done), so a read of the file sees its bytes.
    QBT_WITH_HANDLE(*have = h.have_piece(lt::piece_index_t(piece)))
}

// MARK: status

static void report_status(const lt::torrent_status &st, qbt_status_fn fn, void *context) {
    qbt_status out;
    std::memset(&out, 0, sizeof out);
    copy_id(out.id, torrent_id(st.info_hashes));
    auto ti = st.torrent_file.lock();
    std::string v1 = st.info_hashes.has_v1() ? hex(st.info_hashes.v1) : std::string();
    std::string v2 = st.info_hashes.has_v2() ? hex(st.info_hashes.v2) : std::string();
    std::string error = st.errc ? st.errc.message() : std::string();
    std::string comment = ti ? ti->comment() : std::string();
    std::string creator = ti ? ti->creator() : std::string();
    // qBittorrent's rootPath/contentPath: the top folder all files share (after renames), else the only
    // file, else the save path. Pad files do not count.
    std::string content = st.save_path, root;
    if (ti && ti->num_files() > 0) {
        const auto &fs = ti->files();
        std::string top, only;
        int count = 0;
        bool shared = true;
        for (auto index : fs.file_range()) {
            if (fs.pad_file_at(index)) continue;
            std::string path = fs.file_path(index);
            if (++count == 1) only = path;
            auto slash = path.find('/');
            std::string first = slash == std::string::npos ? std::string() : path.substr(0, slash);
            if (first.empty() || (count > 1 && first != top)) shared = false;
            if (count == 1) top = first;
        }
        if (shared && !top.empty()) root = st.save_path + "/" + top;
        content = count == 1 ? st.save_path + "/" + only : !root.empty() ? root : st.save_path;
    }
    out.content_path = content.c_str();
    out.root_path = root.c_str();
    out.name = st.name.c_str();
    out.save_path = st.save_path.c_str();
    out.info_hash_v1 = v1.c_str();
    out.info_hash_v2 = v2.c_str();
    out.error = error.c_str();
    out.current_tracker = st.current_tracker.c_str();
    out.comment = comment.c_str();
    out.creator = creator.c_str();
    out.state = static_cast<int32_t>(st.state);
    out.has_metadata = st.has_metadata;
    out.paused = bool(st.flags & lt::torrent_flags::paused);
    out.auto_managed = bool(st.flags & lt::torrent_flags::auto_managed);
    out.sequential = bool(st.flags & lt::torrent_flags::sequential_download);
    out.upload_mode = bool(st.flags & lt::torrent_flags::upload_mode);
    out.super_seeding = bool(st.flags & lt::torrent_flags::super_seeding);
    out.is_finished = st.is_finished;
    out.is_seeding = st.is_seeding;
    out.is_private = ti ? ti->priv() : false;
    out.need_save_resume = st.need_save_resume;
    out.progress = st.progress;
    out.distributed_copies = st.distributed_copies;
    out.download_rate = st.download_payload_rate;
    out.upload_rate = st.upload_payload_rate;
    out.num_seeds = st.num_seeds;
    out.num_peers = st.num_peers;
    out.num_complete = st.num_complete;
    out.num_incomplete = st.num_incomplete;
    out.num_connections = st.num_connections;
    out.connections_limit = st.connections_limit;
    out.queue_position = static_cast<int32_t>(st.queue_position);
    out.num_pieces = ti ? ti->num_pieces() : 0;
    out.pieces_have = st.num_pieces;
    out.piece_length = ti ? ti->piece_length() : 0;
    out.trackers_count = ti ? static_cast<int32_t>(ti->trackers().size()) : 0;
    out.next_announce = static_cast<int32_t>(std::chrono::duration_cast<std::chrono::seconds>(st.next_announce).count());
    out.total_size = ti ? ti->total_size() : 0;
    out.total_wanted = st.total_wanted;
    out.total_wanted_done = st.total_wanted_done;
    out.total_done = st.total_done;
    out.all_time_download = st.all_time_download;
    out.all_time_upload = st.all_time_upload;
    out.session_download = st.total_payload_download;
    out.session_upload = st.total_payload_upload;
    out.total_failed = st.total_failed_bytes;
    out.total_redundant = st.total_redundant_bytes;
    out.added_time = static_cast<int64_t>(st.added_time);
    out.completed_time = static_cast<int64_t>(st.completed_time);
    out.last_seen_complete = static_cast<int64_t>(st.last_seen_complete);
    out.last_download = epoch(st.last_download);
    out.last_upload = epoch(st.last_upload);
    out.creation_date = ti ? static_cast<int64_t>(ti->creation_date()) : 0;
    out.active_duration = std::chrono::duration_cast<std::chrono::seconds>(st.active_duration).count();
    out.seeding_duration = std::chrono::duration_cast<std::chrono::seconds>(st.seeding_duration).count();
    out.finished_duration = std::chrono::duration_cast<std::chrono::seconds>(st.finished_duration).count();
    fn(context, &out);
}

static const lt::status_flags_t status_query =
    lt::torrent_handle::query_name | lt::torrent_handle::query_save_path |
    lt::torrent_handle::query_torrent_file | lt::torrent_handle::query_distributed_copies;

qbt_result qbt_get_status(qbt_session *session, const char *id, qbt_status_fn fn, void *context) {
    QBT_WITH_HANDLE(report_status(h.status(status_query), fn, context))
}


qbt_result qbt_get_files(qbt_session *session, const char *id, qbt_file_fn fn, void *context) {
    QBT_GUARD({
        auto h = session->find(id);
        if (!h.is_valid()) return QBT_ERR_NOT_FOUND;
        auto ti = h.torrent_file();
        if (!ti) return QBT_OK;
        const auto &fs = ti->files();
        std::vector<int64_t> progress;
        h.file_progress(progress, lt::torrent_handle::piece_granularity);
        auto priorities = h.get_file_priorities();
        const int64_t piece = ti->piece_length();
        for (auto index : fs.file_range()) {
            if (fs.pad_file_at(index)) continue;
            int i = static_cast<int>(index);
            std::string path = fs.file_path(index);
            qbt_file f;
            f.index = i;
            f.path = path.c_str();
            f.size = fs.file_size(index);
            f.offset = fs.file_offset(index);
            f.downloaded = i < static_cast<int>(progress.size()) ? progress[i] : 0;
            f.priority = i < static_cast<int>(priorities.size()) ? static_cast<uint8_t>(priorities[i]) : 4;
            f.first_piece = piece > 0 ? static_cast<int32_t>(f.offset / piece) : 0;
            f.last_piece = piece > 0 ? static_cast<int32_t>((f.offset + std::max<int64_t>(f.size, 1) - 1) / piece) : 0;
            fn(context, &f);
        }
        return QBT_OK;
    })
}

qbt_result qbt_export_torrent(qbt_session *session, const char *id, qbt_bytes_fn fn, void *context) {
    QBT_GUARD({
        auto h = session->find(id);
        if (!h.is_valid()) return QBT_ERR_NOT_FOUND;
        // As qBittorrent's exportTorrent: the info with its v2 piece layers (torrent_file() drops them, and a
        // hybrid torrent would not serialize), the current trackers with their tiers.
        std::shared_ptr<const lt::torrent_info> ti = metainfo(h);
        if (!ti) return QBT_ERR_INVALID;
        lt::torrent_info info(*ti);
        info.clear_trackers();  // create_torrent would copy the metainfo's own trackers as well
        lt::create_torrent creator(info);
        for (const auto &t : h.trackers()) creator.add_tracker(t.url, t.tier);
        std::vector<char> buffer;
        lt::bencode(std::back_inserter(buffer), creator.generate());
        fn(context, reinterpret_cast<const uint8_t *>(buffer.data()), buffer.size());
        return QBT_OK;
    })
}

// MARK: trackers, web seeds, pieces, queue, storage

qbt_result qbt_get_trackers(qbt_session *session, const char *id, qbt_tracker_fn fn, void *context) {
    QBT_WITH_HANDLE({
        const auto hashes = h.info_hashes();
        for (const auto &entry : h.trackers()) {
            const folded_tracker folded = fold_tracker(entry, hashes);
            qbt_tracker t;
            t.url = entry.url.c_str();
            t.tier = entry.tier;
            t.status = folded.status;
            t.message = folded.message.c_str();
            t.num_peers = folded.peers;
            t.num_seeds = folded.seeds;
            t.num_leeches = folded.leeches;
            t.num_downloaded = folded.downloaded;
            fn(context, &t);
        }
    })
}

qbt_result qbt_set_trackers(qbt_session *session, const char *id, const char *const *urls, const int32_t *tiers,
                            size_t count) {
    QBT_WITH_HANDLE({
        std::vector<lt::announce_entry> entries;
        for (size_t i = 0; i < count; ++i) {
            lt::announce_entry e(urls[i]);
            e.tier = static_cast<std::uint8_t>(std::max(0, std::min(255, tiers[i])));
            entries.push_back(std::move(e));
        }
        h.replace_trackers(entries);
    })
}

qbt_result qbt_reannounce(qbt_session *session, const char *id) { QBT_WITH_HANDLE(h.force_reannounce()) }

qbt_result qbt_get_web_seeds(qbt_session *session, const char *id, qbt_string_fn fn, void *context) {
    QBT_WITH_HANDLE({
        for (const auto &url : h.url_seeds()) fn(context, url.c_str());
    })
}

qbt_result qbt_add_web_seed(qbt_session *session, const char *id, const char *url) {
    QBT_WITH_HANDLE(h.add_url_seed(url))
}

qbt_result qbt_remove_web_seed(qbt_session *session, const char *id, const char *url) {
    QBT_WITH_HANDLE(h.remove_url_seed(url))
}

qbt_result qbt_get_piece_states(qbt_session *session, const char *id, qbt_bytes_fn fn, void *context) {
    QBT_WITH_HANDLE({
        auto ti = h.torrent_file();
        if (!ti) return QBT_OK;
        auto st = h.status(lt::torrent_handle::query_pieces);
        std::vector<uint8_t> states(static_cast<size_t>(ti->num_pieces()), 0);
        for (size_t i = 0; i < states.size() && static_cast<int>(i) < st.pieces.size(); ++i)
            if (st.pieces[lt::piece_index_t(static_cast<int>(i))]) states[i] = 2;
        for (const auto &partial : h.get_download_queue()) {
            auto i = static_cast<size_t>(static_cast<int>(partial.piece_index));
            if (i < states.size() && states[i] == 0) states[i] = 1;
        }
        fn(context, states.data(), states.size());
    })
}

qbt_result qbt_get_piece_availability(qbt_session *session, const char *id, qbt_ints_fn fn, void *context) {
    QBT_WITH_HANDLE({
        std::vector<int> counts;
        h.piece_availability(counts);
        std::vector<int32_t> out(counts.begin(), counts.end());
        fn(context, out.data(), out.size());
    })
}

qbt_result qbt_get_piece_hashes(qbt_session *session, const char *id, qbt_string_fn fn, void *context) {
    QBT_WITH_HANDLE({
        auto ti = h.torrent_file();
        if (!ti) return QBT_OK;
        if (ti->info_hashes().has_v1()) {
            for (auto p : ti->piece_range()) fn(context, hex(ti->hash_for_piece(p)).c_str());
        } else {
            // v2-only: one SHA-256 per piece, file by file, as qBittorrent lists them.
            auto layers = h.piece_layers();
            for (const auto &layer : layers)
                for (const auto &hash : layer) fn(context, hex(hash).c_str());
        }
    })
}

qbt_result qbt_queue(qbt_session *session, const char *id, qbt_queue_move move) {
    QBT_WITH_HANDLE({
        switch (move) {
        case QBT_QUEUE_UP: h.queue_position_up(); break;
        case QBT_QUEUE_DOWN: h.queue_position_down(); break;
        case QBT_QUEUE_TOP: h.queue_position_top(); break;
        case QBT_QUEUE_BOTTOM: h.queue_position_bottom(); break;
        }
    })
}

qbt_result qbt_set_auto_managed(qbt_session *session, const char *id, bool on) {
    QBT_WITH_HANDLE({
        if (on) h.set_flags(lt::torrent_flags::auto_managed);
        else h.unset_flags(lt::torrent_flags::auto_managed);
    })
}

qbt_result qbt_set_super_seeding(qbt_session *session, const char *id, bool on) {
    QBT_WITH_HANDLE({
        if (on) h.set_flags(lt::torrent_flags::super_seeding);
        else h.unset_flags(lt::torrent_flags::super_seeding);
    })
}

qbt_result qbt_set_connection_limits(qbt_session *session, const char *id, int32_t connections, int32_t uploads) {
    QBT_WITH_HANDLE({
        h.set_max_connections(connections > 0 ? connections : -1);
        h.set_max_uploads(uploads > 0 ? uploads : -1);
    })
}

qbt_result qbt_rename_file(qbt_session *session, const char *id, int32_t index, const char *path) {
    QBT_WITH_HANDLE({
        auto ti = h.torrent_file();
        if (!ti || index < 0 || index >= ti->num_files()) return QBT_ERR_INVALID;
        h.rename_file(lt::file_index_t(index), path);
    })
}

qbt_result qbt_move_storage(qbt_session *session, const char *id, const char *path) {
    QBT_WITH_HANDLE(h.move_storage(path, lt::move_flags_t::dont_replace))
}

static std::string peer_flags(const lt::peer_info &p, std::string &desc) {
    std::vector<std::pair<char, const char *>> on;
    bool interesting = p.flags & lt::peer_info::interesting, choked = p.flags & lt::peer_info::choked;
    bool remote_interested = p.flags & lt::peer_info::remote_interested, remote_choked = p.flags & lt::peer_info::remote_choked;
    if (interesting) on.push_back(remote_choked ? std::make_pair('d', "Interested (local) and choked (peer)")
                                                : std::make_pair('D', "Interested (local) and unchoked (peer)"));
    if (remote_interested) on.push_back(choked ? std::make_pair('u', "Interested (peer) and choked (local)")
                                               : std::make_pair('U', "Interested (peer) and unchoked (local)"));
    if (!remote_choked && !interesting) on.push_back({'K', "Not interested (local) and unchoked (peer)"});
    if (!choked && !remote_interested) on.push_back({'?', "Not interested (peer) and unchoked (local)"});
    if (p.flags & lt::peer_info::optimistic_unchoke) on.push_back({'O', "Optimistic unchoke"});
    if (p.flags & lt::peer_info::snubbed) on.push_back({'S', "Peer snubbed"});
    if (p.source & lt::peer_info::incoming) on.push_back({'I', "Incoming connection"});
    if (p.source & lt::peer_info::dht) on.push_back({'H', "Peer from DHT"});
    if (p.source & lt::peer_info::pex) on.push_back({'X', "Peer from PEX"});
    if (p.source & lt::peer_info::lsd) on.push_back({'L', "Peer from LSD"});
    if (p.flags & (lt::peer_info::rc4_encrypted | lt::peer_info::plaintext_encrypted)) on.push_back({'E', "Encrypted traffic"});
    if (p.flags & lt::peer_info::utp_socket) on.push_back({'P', "μTP"});
    std::string letters;
    desc.clear();
    for (const auto &f : on) {
        if (!letters.empty()) { letters += ' '; desc += '\n'; }
        letters += f.first;
        desc += std::string(1, f.first) + " = " + f.second;
    }
    return letters;
}

qbt_result qbt_get_peers(qbt_session *session, const char *id, qbt_peer_fn fn, void *context) {
    QBT_WITH_HANDLE({
        std::vector<lt::peer_info> peers;
        h.get_peer_info(peers);
        auto ti = h.torrent_file();
        auto st = h.status(lt::torrent_handle::query_pieces);
        int missing = 0;
        for (int i = 0; i < st.pieces.size(); ++i) if (!st.pieces[lt::piece_index_t(i)]) ++missing;
        for (const auto &p : peers) {
            std::string ip = p.ip.address().to_string();
            std::string desc, flags = peer_flags(p, desc);
            std::string files;
            if (ti && static_cast<int>(p.downloading_piece_index) >= 0) {
                const auto &fs = ti->files();
                for (const auto &slice : fs.map_block(p.downloading_piece_index, 0, ti->piece_size(p.downloading_piece_index))) {
                    if (!files.empty()) files += '\n';
                    files += fs.file_path(slice.file_index);
                }
            }
            // qBittorrent's relevance: the share of the pieces we miss that this peer has.
            int useful = 0;
            if (missing > 0)
                for (int i = 0; i < p.pieces.size() && i < st.pieces.size(); ++i)
                    if (p.pieces[lt::piece_index_t(i)] && !st.pieces[lt::piece_index_t(i)]) ++useful;
            // qBittorrent's peerIdClient(): the first 8 bytes, "" while unknown, "Unknown" if not printable.
            std::string peer_id;
            if (!p.pid.is_all_zeros()) {
                for (int i = 0; i < 8; ++i) {
                    auto c = static_cast<unsigned char>(p.pid[i]);
                    if (c < 32 || c > 126) { peer_id = "Unknown"; break; }
                    peer_id += static_cast<char>(c);
                }
            }
            qbt_peer out;
            out.ip = ip.c_str();
            out.port = p.ip.port();
            out.client = p.client.c_str();
            out.peer_id = peer_id.c_str();
            out.connection = (p.flags & lt::peer_info::utp_socket) ? "μTP" : "BT";
            out.flags = flags.c_str();
            out.flags_desc = desc.c_str();
            out.files = files.c_str();
            out.progress = p.progress;
            out.relevance = missing > 0 ? static_cast<float>(useful) / static_cast<float>(missing) : 0.0f;
            out.download_rate = p.payload_down_speed;
            out.upload_rate = p.payload_up_speed;
            out.downloaded = p.total_download;
            out.uploaded = p.total_upload;
            fn(context, &out);
        }
    })
}

// MARK: session-wide

void qbt_set_rate_limit_scope(qbt_session *session, bool limit_lan, bool limit_utp) {
    try {
        const auto global = 1u << static_cast<std::uint32_t>(lt::session::global_peer_class_id);
        const auto local = 1u << static_cast<std::uint32_t>(lt::session::local_peer_class_id);
        lt::ip_filter classes;
        classes.add_rule(lt::make_address("0.0.0.0"), lt::make_address("255.255.255.255"), global);
        classes.add_rule(lt::make_address("::"), lt::make_address("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"), global);
        if (!limit_lan) {
            const char *ranges[][2] = {{"10.0.0.0", "10.255.255.255"},     {"172.16.0.0", "172.31.255.255"},
                                       {"192.168.0.0", "192.168.255.255"}, {"169.254.0.0", "169.254.255.255"},
                                       {"127.0.0.0", "127.255.255.255"},   {"::1", "::1"},
                                       {"fe80::", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff"},
                                       {"fc00::", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"}};
            for (auto &r : ranges) classes.add_rule(lt::make_address(r[0]), lt::make_address(r[1]), local);
        }
        session->session.set_peer_class_filter(classes);
        lt::peer_class_type_filter types;
        if (!limit_utp) {
            types.disallow(lt::peer_class_type_filter::utp_socket, lt::session::global_peer_class_id);
            types.disallow(lt::peer_class_type_filter::ssl_utp_socket, lt::session::global_peer_class_id);
        }
        session->session.set_peer_class_type_filter(types);
    } catch (...) {
    }
}

bool qbt_ban_ip(qbt_session *session, const char *ip) {
    try {
        lt::error_code ec;
        auto address = lt::make_address(ip, ec);
        if (ec) return false;
        std::lock_guard<std::mutex> lock(session->mutex);
        session->filter.add_rule(address, address, lt::ip_filter::blocked);
        session->session.set_ip_filter(session->filter);
        return true;
    } catch (...) {
        return false;
    }
}

void qbt_reset_peers_all(qbt_session *session) {
    try {
        std::vector<lt::torrent_handle> all;
        {
            std::lock_guard<std::mutex> lock(session->mutex);
            for (auto &entry : session->handles) all.push_back(entry.second);
        }
        for (auto &h : all) {
            if (!h.is_valid()) continue;
            h.clear_peers();
            h.force_reannounce(0, -1, lt::torrent_handle::ignore_min_interval);
        }
    } catch (...) {
    }
}

bool qbt_set_ip_filter(qbt_session *session, const uint32_t *v4, size_t v4_count, const uint8_t *v6, size_t v6_count) {
    try {
        lt::ip_filter filter;
        for (size_t i = 0; i < v4_count; ++i)
            filter.add_rule(lt::address_v4(v4[2 * i]), lt::address_v4(v4[2 * i + 1]), lt::ip_filter::blocked);
        for (size_t i = 0; i < v6_count; ++i) {
            lt::address_v6::bytes_type first, last;
            std::memcpy(first.data(), v6 + 32 * i, 16);
            std::memcpy(last.data(), v6 + 32 * i + 16, 16);
            filter.add_rule(lt::address_v6(first), lt::address_v6(last), lt::ip_filter::blocked);
        }
        std::lock_guard<std::mutex> lock(session->mutex);
        session->filter = std::move(filter);
        session->session.set_ip_filter(session->filter);
        return true;
    } catch (...) {
        return false;
    }
}

void qbt_get_session_counters(qbt_session *session, qbt_session_counters *out) {
    std::lock_guard<std::mutex> lock(session->counters_mutex);
    *out = session->counters;
    try {
        out->listening = session->session.is_listening();
    } catch (...) {
        out->listening = false;
    }
}

void qbt_post_session_stats(qbt_session *session) {
    try {
        session->session.post_session_stats();
    } catch (...) {
    }
}

// MARK: creating torrents

extern "C++" {
namespace {
struct creation_cancelled : std::exception {
    const char *what() const noexcept override { return "cancelled"; }
};

std::vector<std::string> lines_of(const char *text) {
    std::vector<std::string> out;
    if (!text) return out;
    std::string current;
    for (const char *c = text;; ++c) {
        if (*c == '\n' || *c == '\0') {
            while (!current.empty() && (current.back() == '\r' || current.back() == ' ')) current.pop_back();
            out.push_back(current);
            current.clear();
            if (*c == '\0') break;
        } else {
            current += *c;
        }
    }
    return out;
}
}  // namespace
}

qbt_result qbt_create_torrent_ex(const char *path, const qbt_create_options *options, qbt_progress_fn progress,
                                 qbt_bytes_fn fn, void *context, int32_t *piece_size_out, char **error) {
    try {
        std::string full(path);
        while (full.size() > 1 && full.back() == '/') full.pop_back();
        auto slash = full.find_last_of('/');
        std::string parent = slash == std::string::npos ? "." : (slash == 0 ? "/" : full.substr(0, slash));
        lt::file_storage fs;
        // qbtd's own temp files (uploads and tus data in progress: .qbtd-*) never end up in a torrent.
        lt::add_files(fs, full, [](std::string const &p) {
            return p.substr(p.find_last_of('/') + 1).rfind(".qbtd-", 0) != 0;
        });
        if (fs.num_files() == 0) {
            set_error(error, "nothing to share at " + full);
            return QBT_ERR_INVALID;
        }
        lt::create_flags_t flags{};
        if (options->format == 1) flags |= lt::create_torrent::v1_only;
        if (options->format == 2) flags |= lt::create_torrent::v2_only;
        lt::create_torrent ct(fs, options->piece_size, flags);
        int tier = 0;
        for (auto const &line : lines_of(options->trackers)) {
            if (line.empty()) { ++tier; continue; }
            ct.add_tracker(line, tier);
        }
        for (auto const &line : lines_of(options->url_seeds)) if (!line.empty()) ct.add_url_seed(line);
        if (options->comment && *options->comment) ct.set_comment(options->comment);
        ct.set_priv(options->is_private);
        ct.set_creator("qbtd");
        int total = ct.num_pieces();
        int done = 0;
        lt::set_piece_hashes(ct, parent, [&](lt::piece_index_t) {
            ++done;
            if (progress && !progress(context, done, total)) throw creation_cancelled();
        });
        lt::entry e = ct.generate();
        if (options->source && *options->source) e["info"]["source"] = options->source;
        std::vector<char> out;
        lt::bencode(std::back_inserter(out), e);
        if (piece_size_out) *piece_size_out = ct.piece_length();
        fn(context, reinterpret_cast<const uint8_t *>(out.data()), out.size());
        return QBT_OK;
    } catch (const std::exception &e) {
        set_error(error, e.what());
        return QBT_ERR_FAILED;
    }
}

qbt_result qbt_set_ssl_certificate(qbt_session *session, const char *id, const char *certificate,
                                   const char *private_key, const char *dh_params) {
    QBT_WITH_HANDLE(h.set_ssl_certificate_buffer(certificate, private_key, dh_params))
}

const char *qbt_libtorrent_version(void) { return lt::version(); }

const char *qbt_boost_version(void) {
    static const std::string version = std::to_string(BOOST_VERSION / 100000) + "." +
                                       std::to_string(BOOST_VERSION / 100 % 1000) + "." +
                                       std::to_string(BOOST_VERSION % 100);
    return version.c_str();
}

void qbt_free(void *pointer) { std::free(pointer); }

}  // extern "C"
