// The shim's session: lifecycle, listen port, alert notification, session-wide rules (rate-limit scope, bans, the IP
// filter, peers reset), the session counters, the library versions and qbt_free.
#include "shim_internal.hpp"

#include <pthread.h>

#include <boost/version.hpp>
#include <libtorrent/version.hpp>

using namespace qbt_shim;

namespace {

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

extern "C" {

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

void qbt_set_session_paused(qbt_session *session, bool paused) {
    try {
        if (paused) session->session.pause();
        else session->session.resume();
    } catch (...) {
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

// MARK: versions, memory

const char *qbt_libtorrent_version(void) { return lt::version(); }

const char *qbt_boost_version(void) {
    static const std::string version = std::to_string(BOOST_VERSION / 100000) + "." +
                                       std::to_string(BOOST_VERSION / 100 % 1000) + "." +
                                       std::to_string(BOOST_VERSION % 100);
    return version.c_str();
}

void qbt_free(void *pointer) { std::free(pointer); }

}  // extern "C"
