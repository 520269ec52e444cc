// The shim's torrent creator: hashes a file or directory into a .torrent with qBittorrent's options.
#include "shim_internal.hpp"

using namespace qbt_shim;

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

extern "C" {

// MARK: creating torrents

qbt_result qbt_create_torrent_ex(const char *path, const qbt_create_options *options, qbt_progress_fn progress,
                                 qbt_bytes_fn fn, void *context, int32_t *piece_size_out, char **error) {
    try {
        std::string full(path);
        while (full.size() > 1 && full.back() == '/') full.pop_back();
        auto slash = full.find_last_of('/');
        std::string parent = slash == std::string::npos ? "." : (slash == 0 ? "/" : full.substr(0, slash));
        lt::file_storage fs;
        // qbtd's own temp files (uploads and tus data in progress: .qbtd-*) never end up in a torrent.
        bool const ignore_dotfiles = options->ignore_dotfiles;
        lt::add_files(fs, full, [ignore_dotfiles](std::string const &p) {
            std::string const name = p.substr(p.find_last_of('/') + 1);
            if (ignore_dotfiles && !name.empty() && name[0] == '.') return false;
            return name.rfind(".qbtd-", 0) != 0;
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

}  // extern "C"
