#!/usr/bin/env bash
# Fuzz/run.sh RUNS [HARNESS…]: builds qbtd-fuzz with libFuzzer and AddressSanitizer, then runs each harness (all of
# them by default) for RUNS inputs, starting from its seed corpus in Fuzz/Corpus. A harness that crashes, trips the
# sanitizer or breaks an invariant fails the run; its input is saved under .build/fuzz/crashes/HARNESS/, to replay
# with `.build/fuzz/debug/qbtd-fuzz HARNESS FILE` (or the ordinary build's `.build/debug/qbtd-fuzz HARNESS FILE`).
# FUZZ_SECONDS, when set, also bounds each harness's run (libFuzzer's -max_total_time: whichever comes first; the seed
# corpus is always replayed whole).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:?usage: Fuzz/run.sh RUNS [HARNESS…]}
shift

# The harnesses' own graph has no HTTP server; lld, because gold cannot link libFuzzer's objects.
swift build --scratch-path .build/fuzz --product qbtd-fuzz --sanitize=address \
    -Xswiftc -sanitize=fuzzer -Xswiftc -DQBTD_FUZZ -Xswiftc -use-ld=lld \
    -Xcc -fsanitize=fuzzer-no-link -Xcxx -fsanitize=fuzzer-no-link
BIN=.build/fuzz/debug/qbtd-fuzz

# The harnesses and their input caps come from the binary (Harness.all), all of them unless some are named.
declare -A MAX_LEN=()
ALL=()
listing=$(LSAN_OPTIONS=detect_leaks=0 "$BIN" --list)
while read -r name cap; do MAX_LEN[$name]=$cap; ALL+=("$name"); done <<< "$listing"
[ -n "$listing" ] || { echo "qbtd-fuzz --list named no harness" >&2; exit 1; }
if [ $# -gt 0 ]; then HARNESSES=("$@"); else HARNESSES=("${ALL[@]}"); fi
for h in "${HARNESSES[@]}"; do
    [ -n "${MAX_LEN[$h]:-}" ] || { echo "no harness $h; qbtd-fuzz --list names them: ${ALL[*]}" >&2; exit 2; }
done
failed=0
printf '%-17s %9s %8s %9s %6s %8s\n' harness runs seconds "execs/s" cov crashes
for h in "${HARNESSES[@]}"; do
    corpus=.build/fuzz/corpus/$h crashes=.build/fuzz/crashes/$h log=.build/fuzz/logs/$h.log
    mkdir -p "$corpus" "$crashes" "$(dirname "$log")"
    start=$(date +%s.%N)
    status=0
    # One process, 2 GiB at most, 10 s per input; a leak is a failure too, but for Foundation's own (lsan.supp).
    LSAN_OPTIONS=suppressions=$PWD/Fuzz/lsan.supp:print_suppressions=0 \
    "$BIN" "$h" -runs="$RUNS" ${FUZZ_SECONDS:+-max_total_time="$FUZZ_SECONDS"} -max_len="${MAX_LEN[$h]}" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$crashes/" -print_final_stats=1 "$corpus" Fuzz/Corpus/"$h" > "$log" 2>&1 || status=$?
    seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    found=$(find "$crashes" -type f | wc -l)
    printf '%-17s %9s %8.1f %9.0f %6s %8s\n' "$h" "${runs:-?}" "$seconds" "$(awk -v r="${runs:-0}" -v s="$seconds" 'BEGIN { print r / s }')" "${cov:-?}" "$found"
    if [ "$status" -ne 0 ] || [ "$found" -ne 0 ]; then
        failed=1
        echo "  $h failed (exit $status); the end of $log:"
        tail -30 "$log" | sed 's/^/    /'
    fi
done
exit $failed
