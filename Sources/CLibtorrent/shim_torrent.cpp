// The shim's per-torrent control commands: remove, pause/resume, peers, limits, resume data, pieces and priorities,
// forgetting pieces, streaming, trackers and web seeds, queue, renames and moves, SSL certificates (and hole punching).
#include "shim_internal.hpp"

#include <fcntl.h>
#include <linux/falloc.h>
#include <unistd.h>

using namespace qbt_shim;

extern "C" {

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

// A start clears what stopped the torrent by itself, as qBittorrent's start does: a disk error (libtorrent pauses
// an errored torrent and keeps it so) and the upload mode a failed write (a full or read-only disk) puts it in.
// If the cause is still there, the next write fails again and says so.
qbt_result qbt_resume(qbt_session *session, const char *id) {
    QBT_WITH_HANDLE({
        // Both are messages to the network thread that do nothing on a torrent without an error (no status() round
        // trip, which would block this thread); the metadata prefetch's upload mode is never resumed through here.
        h.clear_error();
        h.unset_flags(lt::torrent_flags::upload_mode);
        h.resume();
    })
}

qbt_result qbt_recheck(qbt_session *session, const char *id) {
    QBT_WITH_HANDLE({
        h.unset_flags(lt::torrent_flags::upload_mode);  // a failed write's; the check clears the error itself
        h.force_recheck();
    })
}

qbt_result qbt_set_metadata(qbt_session *session, const char *id, const uint8_t *torrent_file, size_t length) {
    QBT_WITH_HANDLE({
        if (h.torrent_file()) return QBT_OK;
        lt::error_code ec;
        lt::torrent_info info(lt::span<char const>(reinterpret_cast<char const *>(torrent_file),
                                                   static_cast<std::ptrdiff_t>(length)), ec, lt::from_span);
        if (ec) return QBT_ERR_INVALID;
        h.set_metadata(info.info_section());
    })
}

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

int qbt_save_resume_all(qbt_session *session, bool only_if_modified) {
    try {
        std::vector<lt::torrent_handle> handles;
        if (only_if_modified) {
            // The torrents libtorrent marks modified, found in one trip to its network thread: asking every torrent
            // brings an answer from each (one "not modified" alert apiece, 200,000 of them past the alert queue's
            // 100,000 at a big session's stop).
            auto modified = session->session.get_torrent_status(
                [](const lt::torrent_status &st) { return st.need_save_resume; }, lt::status_flags_t{});
            handles.reserve(modified.size());
            for (auto &st : modified) handles.push_back(st.handle);
        } else {
            std::lock_guard<std::mutex> lock(session->mutex);
            for (auto &entry : session->handles) handles.push_back(entry.second);
        }
        int asked = 0;
        for (auto &h : handles) {
            if (!h.is_valid()) continue;
            // No info dict: see qbt_save_resume. A torrent saved meanwhile answers "not modified", which counts too.
            h.save_resume_data(only_if_modified ? lt::torrent_handle::only_if_modified : lt::resume_data_flags_t{});
            ++asked;
        }
        return asked;
    } catch (...) {
        return 0;
    }
}

qbt_result qbt_set_piece_deadlines(qbt_session *session, const char *id, const int32_t *pieces, const int32_t *ms,
                                   size_t count, bool clear_others) {
    QBT_WITH_HANDLE({
        if (clear_others) h.clear_piece_deadlines();
        for (size_t i = 0; i < count; ++i)
            if (pieces[i] >= 0) h.set_piece_deadline(lt::piece_index_t(pieces[i]), ms[i]);
    })
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

// MARK: trackers, web seeds, queue, storage (commands; their reports are in shim_reports.cpp)

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

qbt_result qbt_add_web_seed(qbt_session *session, const char *id, const char *url) {
    QBT_WITH_HANDLE(h.add_url_seed(url))
}

qbt_result qbt_remove_web_seed(qbt_session *session, const char *id, const char *url) {
    QBT_WITH_HANDLE(h.remove_url_seed(url))
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

// MARK: SSL torrents

qbt_result qbt_set_ssl_certificate(qbt_session *session, const char *id, const char *certificate,
                                   const char *private_key, const char *dh_params) {
    QBT_WITH_HANDLE(h.set_ssl_certificate_buffer(certificate, private_key, dh_params))
}

}  // extern "C"
