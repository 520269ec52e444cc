// The shim's adding: .torrent and magnet parsing, a parsed torrent's summary, and the asynchronous add.
#include "shim_internal.hpp"

using namespace qbt_shim;

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

extern "C" {

// MARK: adding

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

}  // extern "C"
