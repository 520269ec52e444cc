// A bare libtorrent session linked with qbtd's own libtorrent (2.0.11 with contrib/libtorrent's patches), for
// loopback_download.py: the same engine qbtd drives, without qbtd, so the gap between them is qbtd's alone (the
// python-libtorrent session beside it is Debian's 2.0.8).
//
//   bare_session TORRENT SAVE_PATH PEER_PORT TRANSPORT   (TRANSPORT: tcp, utp or utp-4m)
//
// libtorrent's default settings but for the loopback address, no DHT, LSD, UPnP or NAT-PMP, uTP off over TCP and a
// 4 MiB receive buffer for utp-4m, as the python session has them (qbtd's libtorrent gives its UDP socket 4 MiB by
// itself, udp-receive-buffer.patch, so here `utp` and `utp-4m` differ only in TCP's buffers being pinned too).
// Polled in-process every 20 ms throughout: a status read, not a WebAPI request. Adds the torrent with the peer in its add
// parameters (called at once) and prints the seconds from the add to the torrent's last piece passing its check.
#include <libtorrent/add_torrent_params.hpp>
#include <libtorrent/alert_types.hpp>
#include <libtorrent/session.hpp>
#include <libtorrent/settings_pack.hpp>
#include <libtorrent/torrent_info.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

int main(int argc, char** argv) {
    if (argc != 5) {
        std::fprintf(stderr, "usage: bare_session TORRENT SAVE_PATH PEER_PORT tcp|utp|utp-4m\n");
        return 2;
    }
    std::string const transport = argv[4];
    lt::settings_pack pack;
    pack.set_str(lt::settings_pack::listen_interfaces, "127.0.0.1:0");
    pack.set_bool(lt::settings_pack::enable_dht, false);
    pack.set_bool(lt::settings_pack::enable_lsd, false);
    pack.set_bool(lt::settings_pack::enable_upnp, false);
    pack.set_bool(lt::settings_pack::enable_natpmp, false);
    pack.set_bool(lt::settings_pack::enable_outgoing_utp, transport != "tcp");
    if (transport == "utp-4m") pack.set_int(lt::settings_pack::recv_socket_buffer_size, 4 << 20);
    pack.set_int(lt::settings_pack::alert_mask, lt::alert_category::status | lt::alert_category::error);
    lt::session session(pack);

    lt::add_torrent_params params;
    lt::error_code ec;
    params.ti = std::make_shared<lt::torrent_info>(std::string(argv[1]), ec);
    if (ec) {
        std::fprintf(stderr, "bare_session: %s: %s\n", argv[1], ec.message().c_str());
        return 1;
    }
    params.save_path = argv[2];
    params.peers.emplace_back(lt::make_address("127.0.0.1"), std::atoi(argv[3]));
    auto const start = std::chrono::steady_clock::now();
    lt::torrent_handle handle = session.add_torrent(std::move(params));
    // Bounded: 30 minutes, as the python session's wait.
    for (int i = 0; i < 30 * 60 * 50; ++i) {
        if (handle.status({}).progress_ppm == 1000000) {
            std::chrono::duration<double> const took = std::chrono::steady_clock::now() - start;
            std::printf("%.3f\n", took.count());
            return 0;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::fprintf(stderr, "bare_session: not finished after 30 minutes\n");
    return 1;
}
