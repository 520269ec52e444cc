// The shim's reports: torrent status, files, the .torrent, trackers (and their folded status), web seeds, pieces, peers.
#include "shim_internal.hpp"

#include <chrono>
#include <sstream>

using namespace qbt_shim;

namespace {

int64_t epoch(lt::time_point t) {
    if (t == lt::time_point{}) return 0;
    auto now = lt::clock_type::now();
    auto age = std::chrono::duration_cast<std::chrono::seconds>(now - t).count();
    return static_cast<int64_t>(std::time(nullptr)) - age;
}

}  // namespace

namespace qbt_shim {

// What it folds, and how: see folded_tracker in shim_internal.hpp.
folded_tracker fold_tracker(const lt::announce_entry &entry, const lt::info_hash_t &hashes) {
    std::vector<lt::protocol_version> protocols;
    if (hashes.has_v1()) protocols.push_back(lt::protocol_version::V1);
    if (hashes.has_v2()) protocols.push_back(lt::protocol_version::V2);
    folded_tracker out;
    int endpoints = 0, updating = 0, working = 0, not_working = 0, tracker_error = 0, unreachable = 0;
    std::vector<std::pair<int, std::string>> messages;  // (endpoint state, message)
    // libtorrent's announce times are on its steady clock: seconds since 1970 by the distance from now.
    const auto steady_now = lt::clock_type::now();
    const auto wall_now = std::chrono::system_clock::now();
    const auto epoch = [&](lt::time_point32 tp) -> std::int64_t {
        const auto wall = wall_now + std::chrono::duration_cast<std::chrono::system_clock::duration>(tp - steady_now);
        return std::chrono::duration_cast<std::chrono::seconds>(wall.time_since_epoch()).count();
    };
    for (const auto &endpoint : entry.endpoints) {
        std::ostringstream name;
        name << endpoint.local_endpoint;
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
            folded_endpoint e;
            e.name = name.str();
            e.bt_version = version == lt::protocol_version::V1 ? 1 : 2;
            e.updating = ih.updating;
            // 5.2 keeps an endpoint's last state while it announces again (`updating` says so).
            e.status = state == 3 ? (ih.fails > 0 ? (ih.last_error == lt::errors::tracker_failure ? 5
                                                      : ih.last_error == lt::errors::announce_skipped ? 6 : 4)
                                                  : entry.verified ? 2 : 1)
                                  : state;
            e.message = message;
            e.seeds = ih.scrape_complete;
            e.leeches = ih.scrape_incomplete;
            e.downloaded = ih.scrape_downloaded;
            e.next_announce = epoch(ih.next_announce);
            e.min_announce = epoch(ih.min_announce);
            out.endpoints.push_back(std::move(e));
        }
    }
    out.updating = updating > 0;
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
    // The row's times: the earliest next announce among the endpoints in the row's state (5.2's rule).
    for (const auto &e : out.endpoints) {
        if (e.status != out.status) continue;
        if (out.next_announce == 0 || e.next_announce < out.next_announce) {
            out.next_announce = e.next_announce;
            out.min_announce = e.min_announce;
        }
    }
    if (out.seeds >= 0 || out.leeches >= 0) out.peers = std::max(0, out.seeds) + std::max(0, out.leeches);
    return out;
}

void report_status(const lt::torrent_status &st, qbt_status_fn fn, void *context) {
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
    const lt::time_point active = std::max(st.last_upload, st.last_download);
    out.last_activity_steady = active == lt::time_point{} ? 0
        : std::chrono::duration_cast<std::chrono::seconds>(active.time_since_epoch()).count();
    fn(context, &out);
}

}  // namespace qbt_shim

static const lt::status_flags_t status_query =
    lt::torrent_handle::query_name | lt::torrent_handle::query_save_path |
    lt::torrent_handle::query_torrent_file | lt::torrent_handle::query_distributed_copies;

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

extern "C" {

// MARK: status

qbt_result qbt_get_status(qbt_session *session, const char *id, qbt_status_fn fn, void *context) {
    QBT_WITH_HANDLE(report_status(h.status(status_query), fn, context))
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

// MARK: trackers, web seeds, pieces, peers (reports; the commands are in shim_torrent.cpp)

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
            t.updating = folded.updating;
            t.next_announce = folded.next_announce;
            t.min_announce = folded.min_announce;
            std::vector<qbt_tracker_endpoint> endpoints;
            endpoints.reserve(folded.endpoints.size());
            for (const auto &e : folded.endpoints) {
                const int peers = e.seeds >= 0 || e.leeches >= 0 ? std::max(0, e.seeds) + std::max(0, e.leeches) : -1;
                endpoints.push_back(qbt_tracker_endpoint{e.name.c_str(), e.bt_version, e.updating, e.status, e.message.c_str(),
                                                         peers, e.seeds, e.leeches, e.downloaded, e.next_announce,
                                                         e.min_announce});
            }
            t.endpoints = endpoints.data();
            t.endpoint_count = static_cast<int32_t>(endpoints.size());
            fn(context, &t);
        }
    })
}

qbt_result qbt_get_web_seeds(qbt_session *session, const char *id, qbt_string_fn fn, void *context) {
    QBT_WITH_HANDLE({
        for (const auto &url : h.url_seeds()) fn(context, url.c_str());
    })
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

}  // extern "C"
