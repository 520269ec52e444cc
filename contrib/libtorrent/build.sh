#!/usr/bin/env bash
# contrib/libtorrent/build.sh OUT: libtorrent-rasterbar 2.0.11, Debian's own source, with qbtd's patches applied,
# built as a static library: OUT/lib/libtorrent-qbtd.a and its headers in OUT/include.
#
# Why qbtd does not link Debian's libtorrent-rasterbar2.0: the stream cache must make libtorrent forget pieces it
# has discarded, and 2.0.11 has no public call for that (forget-pieces.patch adds torrent_handle::forget_pieces); and a
# torrent a stream reads keeps its seeds, alone of the session's torrents
# (stream-peers.patch adds torrent_handle::set_streaming); and piece_finished_alert comes once the piece is on disk,
# not only hashed, so a stream reader woken by it can read the piece, and torrent_finished_alert once the last
# piece is, so no piece event follows it and a run-on-completion program finds every byte (piece-finished-on-disk.patch;
# 2.0.11 drops a seed's piece picker once every piece has passed its check, written or not, so the patch also keeps
# the picker until the last piece is written, as 2.0.8 did, for the write that completes it to be seen).
# And a speed-up: each torrent's storage asks what kind of drive its save path is on when it starts, which reads a
# dozen files under /sys (all of /sys/block, to find the device) per torrent: a quarter of libtorrent's CPU in a
# restore of 10,000 torrents. The answer is kept per device (drive-info-once.patch).
# And a fix: a file whose priority goes from 0 back up has its pieces copied out of the part file, and a piece whose
# last blocks had not come yet ends the part file short of its slot; 2.0.8 and 2.0.11 then fail the change with "End
# of file" and stop the torrent with a file error (a second file of a torrent streamed while the first downloads).
# What was written is copied, the rest is downloaded into the file (partfile-export-eof.patch).
# And upstream's own fix of 2.0.11's piece picker, from 2.0.13 (picker-filter-accounting.patch, commit e4b5121): since
# 2.0.11 a piece counts as had once it passes its check, but a priority change between its check and its last write
# counted it as filtered and as had at once, so a torrent could count as finished with a wanted piece missing (the
# stream cache sets the pieces it evicts to priority 0).
# And libtorrent's clock is made steady (steady-clock.patch): with libstdc++ its high_resolution_clock is the system
# clock, so every duration and timer of libtorrent's followed the wall clock, and a clock step back (NTP, a resume
# from suspend) stalled every transfer until the wall clock caught up, while a step forward met seeding-time limits.
# And a torrent's all-time totals count the payload of the current second too (stats-before-restart.patch): they
# were folded in only at a second's tick, which a paused torrent never gets and which a restart then cleared, so a
# torrent stopped by a full disk within a second of receiving lost most of it from `downloaded` (and its ratio).
# And a session's end takes time in proportion to its torrents, not to their square (shutdown-linear.patch): the abort
# took each torrent out of the download queue one by one, in hash order, each removal renumbering every torrent behind
# it; and the disk job pool (boost::object_pool) walked its address-ordered free list for every job freed, as every
# torrent's stop job is at the end. A bare session's end with 80,000 stopped torrents took 61.5 s (9.1 s with the
# queue emptied at once), with both 1.1 s; 200,000: 28.6 s with the queue alone, 2.0 s with both.
# And uTP's socket gets a receive buffer of 4 MiB (as far as net.core.rmem_max allows) unless recv_socket_buffer_size
# names one (udp-receive-buffer.patch): with the kernel's default 208 KiB, a uTP peer's burst (up to the 1 MiB window
# libtorrent advertises) overflowed it while the network thread was busy, and a datagram lost at a burst's end waits
# for the sender's retransmit timeout, 500 ms and more: streams' seeks over uTP stalled 0.5-2 s (UdpRcvbufErrors
# counted the drops). Setting recv_socket_buffer_size instead would also pin every TCP socket's buffer, which the
# kernel otherwise grows as a connection needs.
# 2.0.11 made one part of qbtd's 2.0.8 patches unnecessary, dropped: forget-pieces.patch kept a v2 piece layer from
# calling a piece inconsistent when it had passed its check but its last blocks were still being written; 2.0.11's
# torrent::have_piece() counts a piece once it passes (upstream commit 7f691246a, "torrent_status::num_pieces counts
# pieces passed hash check"), so that check no longer trips. No whole patch was dropped.
# The source is Debian trixie's (apt-get source, checked against the SHA-256 below; trixie has no Debian patches of its
# own); the flags are those of the upstream CMake build Debian uses, with Debian's hardening flags, so the library is
# Debian's but for the patches. Built once per checkout: the
# stamp names the tarball, the patches and this script, so a change to any of them builds again.
set -euo pipefail
OUT=${1:?usage: contrib/libtorrent/build.sh OUT}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")"
HERE=$PWD
VERSION=2.0.11
DEBIAN_REVISION=1
TARBALL=libtorrent-rasterbar_${VERSION}.orig.tar.xz
SHA256=78ab1f98874be1a10438734f7870d8bc3bd5289e1af527d68170ed055c1f56b2
PATCHES=(forget-pieces.patch stream-peers.patch piece-finished-on-disk.patch drive-info-once.patch partfile-export-eof.patch
         picker-filter-accounting.patch steady-clock.patch stats-before-restart.patch shutdown-linear.patch
         udp-receive-buffer.patch)

stamp="$OUT/.ready-$(cat build.sh "${PATCHES[@]}" <(echo "$SHA256") | sha256sum | cut -c1-16)"
[ -f "$stamp" ] && exit 0

# The source, from Debian's archive: a deb-src list of our own, so the machine's apt configuration is untouched.
mkdir -p "$OUT/download"
if ! echo "$SHA256  $OUT/download/$TARBALL" | sha256sum -c --status 2>/dev/null; then
    echo "libtorrent: fetching Debian's libtorrent-rasterbar $VERSION source"
    apt_dir="$OUT/download/apt"
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/sources"
    rm -f "$apt_dir"/sources/*.sources  # a download folder an older build.sh left names an older suite
    cat > "$apt_dir/sources/trixie-src.sources" <<EOF
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    apt_opts=(-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$apt_dir/sources"
              -o Dir::State::Lists="$apt_dir/lists" -o APT::Sandbox::User=root)
    apt-get "${apt_opts[@]}" -qq update
    (cd "$OUT/download" && apt-get "${apt_opts[@]}" -qq source --download-only "libtorrent-rasterbar=$VERSION-$DEBIAN_REVISION" >/dev/null)
    echo "$SHA256  $OUT/download/$TARBALL" | sha256sum -c --status \
        || { echo "libtorrent: $TARBALL does not have the expected SHA-256; remove $OUT/download and retry" >&2; exit 1; }
fi

SRC="$OUT/src/libtorrent-rasterbar-$VERSION"  # the tarball's top folder (2.0.8's was libtorrent-2.0.8)
rm -rf "$OUT/src" "$OUT/obj" "$OUT/include" "$OUT/lib" "$OUT"/.ready-*
mkdir -p "$OUT/src" "$OUT/obj" "$OUT/lib"
tar -xf "$OUT/download/$TARBALL" -C "$OUT/src"
for p in "${PATCHES[@]}"; do patch -s -d "$SRC" -p1 < "$HERE/$p"; done

# The sources of upstream's CMakeLists.txt (the library, its DHT, ed25519, try_signal and encryption), read from it.
python3 - "$SRC/CMakeLists.txt" > "$OUT/sources.txt" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
def listed(name, prefix):
    body = re.search(r'set\(%s\s*\n(.*?)\)' % name, text, re.S).group(1)
    for line in body.split('\n'):
        line = line.strip()
        if line and not line.startswith('#'):
            print(prefix + (line if line.endswith('.cpp') else line + '.cpp'))
listed('sources', 'src/')
listed('kademlia_sources', 'src/kademlia/')
listed('ed25519_sources', 'src/ed25519/')
listed('try_signal_sources', 'deps/try_signal/')
print('src/pe_crypto.cpp')  # added by the `encryption` option (on by default, as in Debian's build)
EOF

# Upstream's CMake flags for a release build (the public defines are those pkg-config names for Debian's build),
# with Debian's hardening (dpkg-buildflags: stack protector, _FORTIFY_SOURCE; no -g, which only adds size).
FLAGS=(-O2 -fstack-protector-strong -D_FORTIFY_SOURCE=2 -fPIC -pthread -std=c++17 -fvisibility=hidden
       -fvisibility-inlines-hidden -DNDEBUG -w
       -DTORRENT_BUILDING_LIBRARY -D_FILE_OFFSET_BITS=64 -DBOOST_EXCEPTION_DISABLE -DBOOST_ASIO_HAS_STD_CHRONO
       -DBOOST_ASIO_ENABLE_CANCELIO -DBOOST_ASIO_NO_DEPRECATED -DTORRENT_USE_OPENSSL -DTORRENT_USE_LIBCRYPTO
       -DTORRENT_SSL_PEERS -DOPENSSL_NO_SSL2 -DBOOST_ALL_NO_LIB -I"$SRC/include" -I"$SRC/deps/try_signal")
# The headers every file of the core includes, parsed once: a precompiled header halves the build on 2 cores.
# A file it does not suit (one that sets feature macros before its includes) is compiled without it.
cat > "$OUT/obj/core.hpp" <<'EOF'
#include "libtorrent/aux_/session_impl.hpp"
#include "libtorrent/torrent.hpp"
#include "libtorrent/peer_connection.hpp"
#include "libtorrent/bt_peer_connection.hpp"
EOF
echo "libtorrent: building $(wc -l < "$OUT/sources.txt") files with $(nproc) jobs"
start=$SECONDS
g++ "${FLAGS[@]}" -x c++-header "$OUT/obj/core.hpp" -o "$OUT/obj/core.hpp.gch"
export OUT SRC
export FLAGS_LINE="${FLAGS[*]}"
total=$(wc -l < "$OUT/sources.txt")
compile_one() {
    local f=$1 o
    o="$OUT/obj/$(echo "$f" | tr / _).o"
    case $f in
        src/ed25519/*|deps/*) g++ $FLAGS_LINE -c "$SRC/$f" -o "$o" ;;
        *) g++ $FLAGS_LINE -I"$OUT/obj" -include core.hpp -c "$SRC/$f" -o "$o" 2>/dev/null \
               || g++ $FLAGS_LINE -c "$SRC/$f" -o "$o" ;;
    esac
    echo "$f"
}
export -f compile_one
n=0
while read -r f; do
    n=$((n + 1))
    if [ -t 1 ] || [ $((n % 20)) -eq 0 ] || [ "$n" -eq "$total" ]; then
        printf 'libtorrent: %3d/%d compiled (%d s)\n' "$n" "$total" $((SECONDS - start))
    fi
done < <(xargs -P "$(nproc)" -I{} bash -c 'compile_one {}' < "$OUT/sources.txt")
[ "$(ls "$OUT"/obj/*.o | wc -l)" -eq "$total" ] || { echo "libtorrent: some files did not compile (see above)" >&2; exit 1; }
ar rcs "$OUT/lib/libtorrent-qbtd.a" "$OUT"/obj/*.o
cp -R "$SRC/include" "$OUT/include"
rm -rf "$OUT/obj" "$OUT/src"
touch "$stamp"
echo "libtorrent: built $OUT/lib/libtorrent-qbtd.a in $((SECONDS - start)) s"
