#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster for the tests: made by initdb as an unprivileged user (qbtd-pg when run as root),
# listening on 127.0.0.1 only, trusted from there, without fsync (nothing in it outlives the run).
#   start  makes and starts it if needed, and prints its URL (the tests read QBTD_TEST_POSTGRES_URL; it is also in
#          $ROOT/url, for a caller that would rather not wait on a pipe)
#   stop   stops it and removes its files
set -euo pipefail
BIN=/usr/lib/postgresql/15/bin
ROOT=${QBTD_PG_ROOT:-/tmp/qbtd-postgres}
PORT=${QBTD_PG_PORT:-55432}
as_owner=()
if [ "$(id -u)" = 0 ]; then
    id qbtd-pg >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin qbtd-pg
    as_owner=(runuser -u qbtd-pg --)
fi
[ -x "$BIN/initdb" ] || { echo "PostgreSQL 15's server is missing: apt-get install postgresql-15 (make deps-test does)" >&2; exit 1; }
case "${1:-}" in
start)
    if [ ! -f "$ROOT/data/PG_VERSION" ]; then
        rm -rf "$ROOT" && mkdir -p "$ROOT"
        [ "$(id -u)" = 0 ] && chown qbtd-pg "$ROOT"
        "${as_owner[@]}" "$BIN/initdb" --no-sync -D "$ROOT/data" -U qbtd --auth=trust -E UTF8 --locale=C.UTF-8 >"$ROOT/initdb.log" 2>&1 \
            || { cat "$ROOT/initdb.log" >&2; exit 1; }
    fi
    if ! "${as_owner[@]}" "$BIN/pg_ctl" -D "$ROOT/data" status >/dev/null 2>&1; then
        # The server outlives this script: it must not keep a descriptor it inherited (a caller's pipe would then
        # never reach its end).
        for fd in /proc/$$/fd/*; do
            fd=${fd##*/}
            if [ "$fd" -gt 2 ] 2>/dev/null; then eval "exec $fd>&-" 2>/dev/null || true; fi
        done
        "${as_owner[@]}" "$BIN/pg_ctl" -D "$ROOT/data" -l "$ROOT/server.log" -w -t 60 \
            -o "-c listen_addresses=127.0.0.1 -p $PORT -k $ROOT -c fsync=off -c max_connections=300" start >/dev/null \
            || { tail -20 "$ROOT/server.log" >&2; exit 1; }
    fi
    url="postgres://qbtd@127.0.0.1:$PORT/postgres?sslmode=disable"
    echo "$url" >"$ROOT/url.tmp" && mv "$ROOT/url.tmp" "$ROOT/url"
    echo "$url"
    ;;
stop)
    if [ -f "$ROOT/data/PG_VERSION" ]; then
        if ! "${as_owner[@]}" "$BIN/pg_ctl" -D "$ROOT/data" -m fast -w -t 30 stop >/dev/null 2>&1 \
           && [ -f "$ROOT/data/postmaster.pid" ]; then
            kill -9 "$(head -1 "$ROOT/data/postmaster.pid")" 2>/dev/null || true  # a server that would not stop
        fi
    fi
    rm -rf "$ROOT"
    ;;
*)
    echo "usage: $0 start|stop" >&2; exit 2
    ;;
esac
