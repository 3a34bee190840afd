#!/bin/sh
# fault_walk_fake.sh: HARNESS_FAULT over every driver entry point the
# stand-in driver (tests/fakecuda) serves, for each section that runs on it:
# each entry point a section calls fails at its call K = 1, 2 and last (the
# count the section's own process logged with HARNESS_FAULT_LOG; a child's
# when only children call it). Every run must end cleanly: no signal death
# and no hang, exit 1 (3 for cuInit, whose default code CUDA_ERROR_NO_DEVICE
# means no usable GPU), a stderr line naming the call and "(injected by
# HARNESS_FAULT)", a CSV, and a JSON that reads back marked "incomplete":
# true; and no sanitizer report: an AddressSanitizer error, a UBSan runtime
# error, or a LeakSanitizer leak with a frame in the harness's own code.
# (A leak whose every frame lies in a library already unloaded is set
# apart and counted, not failed: the whole-process child unloads NVRTC,
# whose statically linked C++ runtime leaves its 72704-byte emergency
# exception pool behind.) A K past that run's last call never fires (the
# harness says so): such runs are counted as not reached.
#
# Usage, from the repository root:
#   HARNESS=build/san-address-undefined/harness FAKECUDA=build/libfakecuda.so \
#       sh tests/fault_walk_fake.sh [SECTION ...]
# (every section by default). FAULT_WALK_JOBS runs at a time (default: the
# CPUs), FAULT_WALK_RUN_LIMIT_S per run (default 120). Prints one PASSED or
# FAILED line per run (the stderr of a failed run follows it, indented),
# then
#   fault walk (stand-in driver): N runs, N clear, N with sanitizer reports,
#   N crashes, N hangs, N not reached, N foreign leaks
# and exits 1 when a run broke a rule. The worker form, "--one SECTION NAME
# K", is the script calling itself.
: "${HARNESS:=./harness}"
: "${FAKECUDA:=build/libfakecuda.so}"
: "${FAULT_WALK_RUN_LIMIT_S:=120}"
OPTS="--reps=1 --warmup=0 --rounds=1 --sizes=1024 --synthetic-kernels=1 --child-timeout=60 --quiet"
HARNESS_LIBCUDA=$(cd "$(dirname "$FAKECUDA")" && pwd)/$(basename "$FAKECUDA")
export HARNESS_LIBCUDA

# sanitizer_reports ERRFILE: prints "OURS FOREIGN": the reports that count
# (ASan errors, UBSan runtime errors, leaks with a frame of the harness) and
# the leaks wholly inside unloaded libraries.
sanitizer_reports() {
    awk -v exe="$(basename "$HARNESS")" '
        /ERROR: LeakSanitizer/ { inleak = 1; ours = 0; next }
        inleak && /^SUMMARY: AddressSanitizer/ { if (ours) o++; else f++; inleak = 0; next }
        inleak && /^ *#[0-9]+ / && ($0 ~ / src\// || $0 ~ /\/src\/[a-z_\/]+\.c:/ || index($0, "/" exe "+")) { ours = 1 }
        /ERROR: AddressSanitizer/ || /runtime error:/ { o++ }
        END { if (inleak) { if (ours) o++; else f++ } printf "%d %d\n", o, f }' "$1"
}

# one SECTION NAME K: one run with NAME's K-th call failing; one line out.
one() {
    s=$1 name=$2 k=$3
    d=$(mktemp -d) || exit 1
    HARNESS_FAULT="$name:$k" timeout -k 5 "$FAULT_WALK_RUN_LIMIT_S" "$HARNESS" --section="$s" $OPTS \
        --json="$d/f.json" --csv="$d/f.csv" >"$d/f.out" 2>"$d/f.err"
    rc=$?
    set -- $(sanitizer_reports "$d/f.err")
    ours=$1 foreign=$2
    why= tag=
    want=1
    [ "$name" = cuInit ] && want=3
    if [ "$ours" -gt 0 ]; then
        why="$ours sanitizer report(s)" tag=sanitizer
    elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        why="hung: killed after $FAULT_WALK_RUN_LIMIT_S s" tag=hang
    elif [ "$rc" -ge 128 ]; then
        why="crashed: signal $((rc - 128))" tag=crash
    elif grep -q "^harness: HARNESS_FAULT=$name:$k did not fire" "$d/f.err" &&
         ! grep -q '(injected by HARNESS_FAULT)' "$d/f.err"; then
        printf 'SKIPPED fault walk: %s %s:%s not reached (exit %d) [unreached]\n' "$s" "$name" "$k" "$rc"
        rm -rf "$d"
        return 0
    elif [ "$rc" -ne "$want" ]; then
        why="exit $rc, expected $want"
    elif ! grep -qE "^harness: .*${name}[(:].*\(injected by HARNESS_FAULT\)" "$d/f.err"; then
        why="no stderr line names $name and says it was injected"
    elif ! head -1 "$d/f.csv" 2>/dev/null | grep -q '^section,key,'; then
        why="no CSV written"
    elif ! python3 tests/check_json.py "$d/f.json" --expect-incomplete >"$d/cj" 2>&1; then
        why="JSON: $(head -2 "$d/cj" | tr '\n' ' ')"
    fi
    note=
    [ "$foreign" -gt 0 ] && note=" [foreign-leak:$foreign]"
    if [ -z "$why" ]; then
        printf 'PASSED fault walk: %s %s:%s exit %d%s\n' "$s" "$name" "$k" "$rc" "$note"
    else
        printf 'FAILED fault walk: %s %s:%s: %s [%s]%s\n%s\n' "$s" "$name" "$k" "$why" "${tag:-rule}" \
            "$note" "$(grep -v 'elements wrong' "$d/f.err" | tail -12 | sed 's/^/    /')"
    fi
    rm -rf "$d"
}

if [ "${1:-}" = --one ]; then
    shift
    one "$@"
    exit 0
fi

[ -x "$HARNESS" ] || { echo "FAILED fault walk: no $HARNESS (make builds it)"; exit 1; }
[ -e "$FAKECUDA" ] || { echo "FAILED fault walk: no $FAKECUDA (make builds it)"; exit 1; }
# Every section of the one list (src/sections/list.h: the entries of scope
# DEVICE or NODE_LEVEL; the node run and the program are not sections).
ALL=$(sed -n 's/^ *X([A-Z_]*, "\([a-z-]*\)", \(DEVICE\|NODE_LEVEL\),.*/\1/p' src/sections/list.h | tr '\n' ' ')
[ -n "$ALL" ] || { echo "FAILED fault walk: no section read from src/sections/list.h"; exit 1; }
SECTIONS=${*:-$ALL}
JOBS=${FAULT_WALK_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
W=$(mktemp -d) || exit 1
trap 'rm -rf "$W"' EXIT
# Discovery: the calls of each section, per process; then the runs, as
# "SECTION NAME K" lines: K = 1, 2 and the last call of the section's own
# process (the log's last block), else of the child that made the most.
for s in $SECTIONS; do
    # shellcheck disable=SC2086
    HARNESS_FAULT_LOG="$W/calls.$s" timeout -k 5 "$FAULT_WALK_RUN_LIMIT_S" "$HARNESS" --section="$s" \
        $OPTS >/dev/null 2>"$W/base.$s.err"
    [ -s "$W/calls.$s" ] || echo "FAILED fault walk: --section=$s logged no calls"
    awk -v s="$s" '
        /^# process/ { p++; next }
        $1 ~ /^cu/ { c[p, $1] = $2; names[$1] = 1; if ($2 > most[$1]) most[$1] = $2 }
        END {
            for (n in names) {
                last = ((p, n) in c) ? c[p, n] : most[n]
                print s, n, 1
                if (last >= 2) print s, n, 2
                if (last > 2) print s, n, last
            }
        }' "$W/calls.$s"
done >"$W/runs"
xargs -P "$JOBS" -n 3 sh "$0" --one <"$W/runs" >"$W/log"
cat "$W/log"
count() { grep -c "$1" "$W/log"; }
runs=$(wc -l <"$W/runs" | tr -d ' ')
clear=$(count '^PASSED')
unreached=$(count '\[unreached\]')
san=$(count '^FAILED.*\[sanitizer\]')
crash=$(count '^FAILED.*\[crash\]')
hang=$(count '^FAILED.*\[hang\]')
foreign=$(awk -F'foreign-leak:' 'NF > 1 { split($2, a, "]"); n += a[1] } END { print n + 0 }' "$W/log")
echo "fault walk (stand-in driver): $runs runs, $clear clear, $san with sanitizer reports, $crash crashes, $hang hangs, $unreached not reached, $foreign foreign leaks"
[ "$((clear + unreached))" -eq "$runs" ] && [ "$runs" -gt 0 ]
