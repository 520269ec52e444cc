// The shim's events: the alert translator that drains libtorrent's alert queue into events and state updates.
#include "shim_internal.hpp"

using namespace qbt_shim;

static std::string alert_torrent_id(const lt::torrent_alert *a) {
    try {
        return torrent_id(a->handle.info_hashes());
    } catch (...) {
        return {};
    }
}

// What a file error was doing, as the header's QBT_FILE_OP_*.
static int32_t file_operation(lt::operation_t op) {
    switch (op) {
    case lt::operation_t::file_read: case lt::operation_t::partfile_read: return QBT_FILE_OP_READ;
    case lt::operation_t::file_open: return QBT_FILE_OP_OPEN;
    case lt::operation_t::file_write: case lt::operation_t::partfile_write:
    case lt::operation_t::file_fallocate: case lt::operation_t::file_truncate: return QBT_FILE_OP_WRITE;
    default: return QBT_FILE_OP_OTHER;
    }
}

// The errno of a system error; -1 for libtorrent's own errors.
static int32_t system_errno(const lt::error_code &error) {
    return error.category() == boost::system::generic_category() || error.category() == boost::system::system_category()
        ? error.value() : -1;
}

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

extern "C" {

// MARK: events

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
            case lt::file_error_alert::alert_type: {
                auto *a = static_cast<lt::file_error_alert *>(alert);
                ev.kind = QBT_EVENT_FILE_ERROR;
                ev.piece = file_operation(a->op);
                ev.state = system_errno(a->error);
                break;
            }
            case lt::fastresume_rejected_alert::alert_type: {
                auto *a = static_cast<lt::fastresume_rejected_alert *>(alert);
                ev.kind = QBT_EVENT_RESUME_REJECTED;
                ev.piece = file_operation(a->op);
                ev.state = a->error == lt::errors::mismatching_file_size ? ENOENT : system_errno(a->error);
                break;
            }
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
            case QBT_EVENT_FILE_RENAME_FAILED: case QBT_EVENT_RESUME_DATA_FAILED: case QBT_EVENT_RESUME_REJECTED:
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

}  // extern "C"
