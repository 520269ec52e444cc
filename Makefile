# The two commands of the README. Both install what they need on Debian 12 when it is missing.
SHELL := /bin/bash
# libtorrent is built from Debian's source with qbtd's patches (contrib/libtorrent): g++, patch and Boost's headers.
APT_RUN  := g++ patch xz-utils libboost-dev libsqlite3-dev zlib1g-dev libssl-dev libmpg123-dev libcurl4-openssl-dev pkg-config
# qbittorrent-nox is the reference server of the differential suite; openssl makes test certificates; ffmpeg
# makes and plays test media; lame encodes the test MP3s; systemd checks the service unit (systemd-analyze);
# nginx-light runs the reverse-proxy recipes of contrib/nginx; prometheus scrapes /metrics; debootstrap makes the
# chroots of the newer real releases (contrib/reference-chroots); fiu-utils fails POSIX calls for the fault tests;
# postgresql is a cluster's catalogue (the tests start a throwaway one: Tests/postgres/throwaway-cluster.sh).
APT_TEST := $(APT_RUN) postgresql debootstrap python3-libtorrent python3-venv qbittorrent-nox openssl ffmpeg lame systemd nginx-light prometheus chromium chromium-driver fiu-utils
VENV := .venv
SWIFT_BUILD_FLAGS ?=

.PHONY: run test bench build deps-run deps-test deps-bench swift-test e2e-test clean completions install openapi fuzz-api \
	fuzz fuzz-short soak libtorrent references

# The server people run is the release build (seedbox scale needs it); tests use the debug build.
run: deps-run libtorrent
	swift build -c release --product qbtd $(SWIFT_BUILD_FLAGS)
	.build/release/qbtd $(ARGS)

build: libtorrent
	swift build $(SWIFT_BUILD_FLAGS)

# libtorrent-rasterbar 2.0.11 with qbtd's patches, once per checkout (about 15 minutes on 2 cores; then a no-op).
libtorrent: deps-run
	contrib/libtorrent/build.sh .build-libtorrent
	@# SwiftPM does not notice a rebuilt static library, nor the headers that came with it: what was linked against
	@# an older one is linked again, and the shim compiled against older headers is compiled again.
	@for f in .build/{debug,release}/{qbtd,qbt,qbtd-fuzz,qbtd-encode-benchmark,qbtdPackageTests.xctest} .build/fuzz/debug/qbtd-fuzz; do \
		if [ -e "$$f" ] && [ .build-libtorrent/lib/libtorrent-qbtd.a -nt "$$f" ]; then rm -f "$$f"; fi; done
	@for o in .build/*/{debug,release}/CLibtorrent.build/*.o .build/fuzz/*/debug/CLibtorrent.build/*.o; do \
		if [ -e "$$o" ] && [ .build-libtorrent/lib/libtorrent-qbtd.a -nt "$$o" ]; then rm -f "$$o"; fi; done

test: deps-test build swift-test e2e-test fuzz-short

# Both suites get a throwaway PostgreSQL on 127.0.0.1 (the store's tests run on it and on SQLite; the cluster's
# end-to-end tests start nodes on it), stopped and removed when they end, pass or fail.
PG_CLUSTER := Tests/postgres/throwaway-cluster.sh
swift-test: deps-test libtorrent
	url=$$($(PG_CLUSTER) start) && trap '$(PG_CLUSTER) stop' EXIT && QBTD_TEST_POSTGRES_URL=$$url swift test $(SWIFT_BUILD_FLAGS)

# End-to-end: the built qbtd against real libtorrent peers and real clients, all on 127.0.0.1.
e2e-test: $(VENV)/.ready references
	url=$$($(PG_CLUSTER) start) && trap '$(PG_CLUSTER) stop' EXIT && QBTD_TEST_POSTGRES_URL=$$url \
		QBTD_BIN=$(CURDIR)/.build/debug/qbtd $(VENV)/bin/python -m pytest -q -p no:cacheprovider --durations=30 Tests/e2e

# Benchmarks print figures and ratios against qbittorrent-nox run in the same script; not part of `make test`.
# They measure the release build, as the reference is a release build too.
BENCH_BIN := $(CURDIR)/.build/release/qbtd
BIG_DOWNLOAD_TRANSPORTS := tcp,utp-4m
bench: deps-bench libtorrent $(VENV)/.ready
	swift build -c release
	QBTD_BIN=$(BENCH_BIN) $(VENV)/bin/python Benchmarks/loopback_download.py $(or $(MIB),256)
	@# 4 GiB over uTP against the bare session with its default 208 KiB UDP buffer takes 10 minutes a round: utp-4m only
	$(if $(MIB),,TRANSPORTS=$(BIG_DOWNLOAD_TRANSPORTS) QBTD_BIN=$(BENCH_BIN) $(VENV)/bin/python Benchmarks/loopback_download.py 4096)
	QBTD_BIN=$(BENCH_BIN) $(VENV)/bin/python Benchmarks/scale.py $(SCALE_TORRENTS)
	.build/release/qbtd-encode-benchmark 10000  # a full 10,000-torrent maindata: shared rows against a dictionary per torrent
	QBTD_BIN=$(BENCH_BIN) $(VENV)/bin/python Benchmarks/search_load.py $(RESULTS)
	QBTD_BIN=$(BENCH_BIN) $(VENV)/bin/python Benchmarks/stream_latency.py $(SEEKS)
	QBTD_BIN=$(BENCH_BIN) $(VENV)/bin/python Benchmarks/stream_sendfile.py $(SENDFILE_MIB)
	QBTD_BIN=$(BENCH_BIN) $(VENV)/bin/python Benchmarks/stream_readers.py $(if $(READERS),--readers $(READERS))
	QBTD_BIN=$(BENCH_BIN) $(VENV)/bin/python Benchmarks/upload_throughput.py $(UPLOAD_MIB)
	QBTD_BIN=$(BENCH_BIN) $(VENV)/bin/python Benchmarks/music_hls.py $(TRACKS_MUSIC)
	QBTD_BIN=$(BENCH_BIN) $(VENV)/bin/python Benchmarks/webui_render.py --torrents $(or $(WEBUI_TORRENTS),50000)
	QBTD_BIN=$(BENCH_BIN) $(VENV)/bin/python Benchmarks/push.py $(if $(PUSH_CLIENTS),--clients $(PUSH_CLIENTS))  # SSE against rid polling, 10,000 torrents
	QBTD_BIN=$(BENCH_BIN) $(VENV)/bin/python Benchmarks/fairness.py $(if $(FAIRNESS_TORRENTS),--torrents $(FAIRNESS_TORRENTS))  # a WebUI's polls during a 2,000-request burst
	QBTD_BIN=$(BENCH_BIN) $(VENV)/bin/python Benchmarks/cluster_limits.py  # one global limit over two nodes against one qbtd
	QBTD_BIN=$(BENCH_BIN) $(VENV)/bin/python Benchmarks/cluster.py $(CLUSTER_TORRENTS)  # 4 nodes × 25,000 against one qbtd with 100,000

deps-bench:
	@contrib/apt-ensure $(APT_TEST)

deps-run:
	@contrib/apt-ensure $(APT_RUN)

deps-test:
	@contrib/apt-ensure $(APT_TEST)
	@contrib/client-suites

# The real 5.1 and 5.3 releases the differential suite compares qbtd's profiles with, in chroots outside the checkout
# ($$QBTD_REFERENCES or /var/cache/qbtd-references), made once per machine (a no-op when they are there).
references: deps-test
	@contrib/reference-chroots

# python3-libtorrent lives in Debian's python, so the venv sees system site-packages.
$(VENV)/.ready: contrib/requirements-test.txt
	/usr/bin/python3 -m venv --system-site-packages $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check -r contrib/requirements-test.txt
	touch $@

# The OpenAPI document, openapi/qbtd.yaml, generated from the router of each profile (a test fails while it is stale);
# the build copies it beside the binary as the OpenAPIDocument target's resource.
openapi: build $(VENV)/.ready
	QBTD_BIN=$(CURDIR)/.build/debug/qbtd $(VENV)/bin/python openapi/generate.py
	swift build $(SWIFT_BUILD_FLAGS)

# schemathesis against a live qbtd, an hour per profile run (make test runs each for 45 s).
fuzz-api: deps-test build $(VENV)/.ready
	SCHEMATHESIS_EXAMPLES=500 SCHEMATHESIS_SECONDS=$${SECONDS_FUZZ:-3600} QBTD_BIN=$(CURDIR)/.build/debug/qbtd \
		$(VENV)/bin/python -m pytest -q -s -p no:cacheprovider Tests/e2e/test_openapi.py -k schemathesis

# libFuzzer + AddressSanitizer on every parser of hostile input (Fuzz/run.sh prints runs, execs/s, coverage, crashes):
# a million inputs per harness; `make test` runs 10,000 each or 15 s, whichever ends first (the XML harnesses, rss and
# torznab, run about 170 inputs/s under the sanitizer: 60 s each for 10,000), after replaying the seed corpora.
FUZZ_RUNS ?= 1000000
fuzz: deps-test libtorrent
	Fuzz/run.sh $(FUZZ_RUNS) $(HARNESS)

fuzz-short: libtorrent
	FUZZ_SECONDS=15 Fuzz/run.sh 10000

# The crash campaign (SIGKILL at 20 moments under load; nothing acknowledged may be lost), the fault campaign (full,
# read-only and vanished disks under the same load, qbittorrent-nox 4.5.2 beside it; needs root) and the 10-minute soak
# (200 clients polling sync/maindata against 2,000 torrents while streams play and uploads run), on the release build.
soak: deps-test libtorrent $(VENV)/.ready
	swift build -c release --product qbtd
	QBTD_BIN=$(BENCH_BIN) $(VENV)/bin/python Tests/soak/crash_campaign.py --kills $${KILLS:-20} $(if $(SEED),--seed $(SEED))
	QBTD_BIN=$(BENCH_BIN) $(VENV)/bin/python Tests/soak/fault_campaign.py --nox $(if $(SEED),--seed $(SEED))
	QBTD_BIN=$(BENCH_BIN) $(VENV)/bin/python Benchmarks/soak.py --minutes $${MINUTES:-10}

# Shell completions for qbt, written by the binary itself and kept in the tree (a test checks they are current).
completions: build
	.build/debug/qbt --generate-completion-script bash > contrib/completions/qbt.bash
	.build/debug/qbt --generate-completion-script zsh > contrib/completions/_qbt
	.build/debug/qbt --generate-completion-script fish > contrib/completions/qbt.fish

# `make install` (PREFIX=/usr/local, DESTDIR for staging; CONFIG=debug reuses the test build).
PREFIX ?= /usr/local
CONFIG ?= release
install: deps-run libtorrent
	swift build -c $(CONFIG) $(SWIFT_BUILD_FLAGS)
	install -D -m 755 .build/$(CONFIG)/qbtd $(DESTDIR)$(PREFIX)/bin/qbtd
	install -D -m 755 .build/$(CONFIG)/qbt $(DESTDIR)$(PREFIX)/bin/qbt
	install -D -m 644 contrib/completions/qbt.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/qbt
	install -D -m 644 contrib/completions/_qbt $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_qbt
	install -D -m 644 contrib/completions/qbt.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/qbt.fish
	# qbtd's web interface, where the binary looks for it (<prefix>/share/qbtd/www beside <prefix>/bin/qbtd).
	rm -rf $(DESTDIR)$(PREFIX)/share/qbtd/www
	install -d $(DESTDIR)$(PREFIX)/share/qbtd
	cp -R Sources/WebUI/www $(DESTDIR)$(PREFIX)/share/qbtd/www
	# The OpenAPI document qbtd serves at /api/v2/qbtd/openapi.yaml, found the same way.
	install -D -m 644 openapi/qbtd.yaml $(DESTDIR)$(PREFIX)/share/qbtd/openapi.yaml

# .build-libtorrent (the patched libtorrent) survives: `rm -rf .build-libtorrent` builds it again.
clean:
	rm -rf .build $(VENV)
