#!/usr/bin/env bash
# fault_walk.sh: fail every driver and NVRTC entry point the harness calls,
# once each, and check that every run ends cleanly: the documented exit code
# (1; 3 allowed where cuInit or cuDeviceGetCount fail with a code that means
# "no usable GPU", as cuInit's default CUDA_ERROR_NO_DEVICE does), one stderr
# line naming the call and "(injected by HARNESS_FAULT)", a --json that reads
# back and says "incomplete": true (and, for exit 3, lists the skipped
# sections), a --csv, and no crash or hang.
#
# First each section runs alone with HARNESS_FAULT_LOG, which lists the
# entry points it (and its child processes) called and how often. Then each
# entry point fails at its first call (NAME:1) in the fastest section that
# calls it; then, while FAULT_WALK_BUDGET_S lasts, at its last call in that
# section's own process (NAME:K, K its count there: the end of the section's
# path), then at the first and last calls in every other section that calls
# it (each reaches other call sites first).
#
# Usage, from the repository root: bash tests/gpu/fault_walk.sh
# (HARNESS=./harness by default, built when missing; the log goes to
# ${OUT:-/tmp}/fault_walk.log; FAULT_WALK_BUDGET_S=200 seconds by default).
# HARNESS_LIBCUDA=.../libcuda.so.1 built from tests/fakecuda walks a
# stand-in driver on a machine without a GPU (there every run fails its
# checks, so only the error paths are shown).
# Ends with
#   fault walk: N call sites tried, N clear errors, N crashes
# and exits 1 when a run crashed, hung or broke a rule above.
set -u
HARNESS=${HARNESS:-./harness}
BUDGET=${FAULT_WALK_BUDGET_S:-200}
RUN_LIMIT=${FAULT_WALK_RUN_LIMIT_S:-120}
OUTDIR=${OUT:-/tmp}
mkdir -p "$OUTDIR"
LOG="$OUTDIR/fault_walk.log"
if [ ! -x "$HARNESS" ]; then make -s >/dev/null || exit 1; fi
W=$(mktemp -d) || exit 1
trap 'rm -rf "$W"' EXIT
: >"$LOG"
OPTS=(--reps=2 --warmup=1 --rounds=1 "--sizes=1024,65536" --synthetic-kernels=1
      --child-timeout=60 --quiet)
SECTIONS=(visible stopwatches crossover loading jit launch fusion)
say() { echo "$*" | tee -a "$LOG"; }
now() { date +%s.%N; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a - b }'; }
if command -v timeout >/dev/null 2>&1; then
    limit() { timeout -k 5 "$RUN_LIMIT" "$@"; }
else
    limit() { "$@"; }
fi

start=$(now)
# Discovery: what each section calls, and how long it runs.
declare -A secs_time
for s in "${SECTIONS[@]}"; do
    rm -f "$W/calls.$s"
    t0=$(now)
    HARNESS_FAULT_LOG="$W/calls.$s" limit \
        "$HARNESS" --section="$s" "${OPTS[@]}" --json="$W/base.$s.json" \
        >"$W/base.$s.out" 2>"$W/base.$s.err"
    rc=$?
    t1=$(now)
    secs_time[$s]=$(sub "$t1" "$t0")
    touch "$W/calls.$s"
    n=$(grep -v '^#' "$W/calls.$s" | cut -d' ' -f1 | sort -u | wc -l)
    say "baseline: --section=$s exit $rc, ${secs_time[$s]} s, $n entry points"
    if [ "$rc" -ne 0 ]; then
        say "  note: the unfaulted run exits $rc, so its exit code proves less; its stderr:"
        head -5 "$W/base.$s.err" | sed 's/^/    /' | tee -a "$LOG"
    fi
done
# Sections from fastest to slowest.
mapfile -t ORDER < <(for s in "${SECTIONS[@]}"; do echo "${secs_time[$s]} $s"; done |
                     sort -n | cut -d' ' -f2)
# Runs, as "SECTION NAME K": each entry point's first call in the fastest
# section calling it; then, budget permitting, its last call there (counted
# in the section's own process: the last block of its log), then the first
# and last calls in the other sections.
: >"$W/first"
: >"$W/more"
: >"$W/rest"
declare -A seen
for s in "${ORDER[@]}"; do
    # The parent's counts: the lines after the log's last "# process" line.
    awk '/^# process/ { split("", c); next } { c[$1] = $2 } END { for (k in c) print k, c[k] }' \
        "$W/calls.$s" >"$W/parent.$s"
    # shellcheck disable=SC2013
    for name in $(grep -v '^#' "$W/calls.$s" | cut -d' ' -f1 | sort -u); do
        last=$(awk -v n="$name" '$1 == n { print $2 }' "$W/parent.$s")
        if [ -z "${seen[$name]:-}" ]; then
            seen[$name]=1
            echo "$s $name 1" >>"$W/first"
            [ "${last:-0}" -gt 1 ] && echo "$s $name $last" >>"$W/more"
        else
            echo "$s $name 1" >>"$W/rest"
            [ "${last:-0}" -gt 1 ] && echo "$s $name $last" >>"$W/rest"
        fi
    done
done
cat "$W/rest" >>"$W/more"
say "entry points called: ${#seen[@]}; runs: $(wc -l <"$W/first") required, $(wc -l <"$W/more") more while the budget (${BUDGET} s) lasts"

tried=0 clear=0 crashes=0 skipped=0 unreached=0
# try SECTION NAME K: one run with NAME's K-th call failing; count it.
try() {
    local s=$1 name=$2 k=$3 rc why="" j="$W/f.json" c="$W/f.csv"
    rm -f "$j" "$c"
    HARNESS_FAULT="$name:$k" limit \
        "$HARNESS" --section="$s" "${OPTS[@]}" --json="$j" --csv="$c" >"$W/f.out" 2>"$W/f.err"
    rc=$?
    # NAME:K past this run's last call of NAME (timed code's call counts vary
    # with batching): the run measured as usual and said so; not a call site.
    # A fault that fired in a child is judged as any other (the parent's own
    # count says nothing about its children's).
    if [ "$rc" -lt 128 ] && grep -q "^harness: HARNESS_FAULT=$name:$k did not fire" "$W/f.err" &&
       ! grep -q '(injected by HARNESS_FAULT)' "$W/f.err"; then
        unreached=$((unreached + 1))
        echo "skip $s $name:$k exit $rc: $(grep -m1 'did not fire' "$W/f.err" | cut -c1-200)" >>"$LOG"
        return
    fi
    tried=$((tried + 1))
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        why="hung: killed after ${RUN_LIMIT} s"
    elif [ "$rc" -ge 128 ]; then
        why="crashed: signal $((rc - 128))"
    fi
    if [ -n "$why" ]; then
        crashes=$((crashes + 1))
    elif [ "$rc" -ne 1 ] && ! { [ "$rc" -eq 3 ] &&
                               { [ "$name" = cuInit ] || [ "$name" = cuDeviceGetCount ]; }; }; then
        why="exit $rc, expected 1"
    elif ! grep -qE "^harness: .*${name}[(:].*\(injected by HARNESS_FAULT\)" "$W/f.err"; then
        why="no stderr line names $name and says it was injected"
    elif [ ! -s "$j" ]; then
        why="no JSON written"
    elif ! head -1 "$c" 2>/dev/null | grep -q '^section,key,'; then
        why="no CSV written"
    elif ! python3 tests/check_json.py "$j" --expect-incomplete >"$W/cj" 2>&1; then
        why="JSON: $(head -2 "$W/cj" | tr '\n' ' ')"
    elif [ "$rc" -eq 3 ] && ! python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["skipped"] else 1)' "$j" 2>/dev/null; then
        why="exit 3 but the JSON lists no skipped section"
    fi
    if [ -z "$why" ]; then
        clear=$((clear + 1))
        echo "ok   $s $name:$k exit $rc: $(grep -m1 -E "${name}[(:]" "$W/f.err" | cut -c1-200)" >>"$LOG"
    else
        say "FAIL $s $name:$k: $why"
        sed 's/^/    /' "$W/f.err" | tail -8 | tee -a "$LOG"
    fi
}
while read -r s name k; do try "$s" "$name" "$k"; done <"$W/first"
while read -r s name k; do
    if awk -v e="$(sub "$(now)" "$start")" -v b="$BUDGET" 'BEGIN { exit !(e > b) }'; then
        skipped=$((skipped + 1))
        continue
    fi
    try "$s" "$name" "$k"
done <"$W/more"
[ "$skipped" -gt 0 ] && say "budget spent: $skipped further runs not tried"
say "time: $(sub "$(now)" "$start") s"
[ "$unreached" -gt 0 ] && say "not reached: $unreached runs whose K was past that run's last call (the harness said it did not fire)"
say "fault walk: $tried call sites tried, $clear clear errors, $crashes crashes"
[ "$crashes" -eq 0 ] && [ "$clear" -eq "$tried" ] && [ "$tried" -gt 0 ]
