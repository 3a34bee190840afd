#!/usr/bin/env bash
# fault_walk.sh: fail every driver and NVRTC entry point the harness calls,
# once each, and check that every run ends cleanly: the documented exit code
# (1; 3 allowed where cuInit or cuDeviceGetCount fail, which means "no usable
# GPU"), one stderr line naming the call and "(injected by HARNESS_FAULT)",
# a --json that reads back and says "incomplete": true (or, for exit 3,
# lists the skipped sections), and no crash or hang.
#
# First each section runs alone with HARNESS_FAULT_LOG, which lists the
# entry points it (and its child processes) called. Then each entry point
# fails at its first call (NAME:1) in the fastest section that calls it;
# then, while FAULT_WALK_BUDGET_S lasts, in every other section that calls
# it too (each section reaches other call sites first).
#
# Usage: tests/gpu/fault_walk.sh   (HARNESS=build/harness by default; the
# log goes to ${OUT:-/tmp}/fault_walk.log). Ends with
#   fault walk: N call sites tried, N clear errors, N crashes
# and exits 1 when a run crashed, hung or broke a rule above.
set -u
HARNESS=${HARNESS:-build/harness}
BUDGET=${FAULT_WALK_BUDGET_S:-200}
RUN_LIMIT=${FAULT_WALK_RUN_LIMIT_S:-120}
OUTDIR=${OUT:-/tmp}
mkdir -p "$OUTDIR"
LOG="$OUTDIR/fault_walk.log"
W=$(mktemp -d) || exit 1
trap 'rm -rf "$W"' EXIT
: >"$LOG"
OPTS=(--reps=2 --warmup=1 --rounds=1 --sizes=1024,65536 --synthetic-kernels=1
      --child-timeout=60 --quiet)
SECTIONS=(stopwatches crossover loading jit launch fusion)
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
    n=$( [ -f "$W/calls.$s" ] && cut -d' ' -f1 "$W/calls.$s" | sort -u | wc -l || echo 0)
    say "baseline: --section=$s exit $rc, ${secs_time[$s]} s, $n entry points"
    if [ "$rc" -ne 0 ]; then
        say "  note: the unfaulted run exits $rc, so its exit code proves less; its stderr:"
        head -5 "$W/base.$s.err" | sed 's/^/    /' | tee -a "$LOG"
    fi
    touch "$W/calls.$s"
done
# Sections from fastest to slowest.
mapfile -t ORDER < <(for s in "${SECTIONS[@]}"; do echo "${secs_time[$s]} $s"; done |
                     sort -n | cut -d' ' -f2)
# Runs: each entry point once in the fastest section calling it, then the rest.
: >"$W/first"
: >"$W/rest"
declare -A seen
for s in "${ORDER[@]}"; do
    for name in $(cut -d' ' -f1 "$W/calls.$s" | sort -u); do
        if [ -z "${seen[$name]:-}" ]; then
            seen[$name]=1
            echo "$s $name" >>"$W/first"
        else
            echo "$s $name" >>"$W/rest"
        fi
    done
done
say "entry points called: ${#seen[@]}; runs: $(wc -l <"$W/first") required, $(wc -l <"$W/rest") more while the budget (${BUDGET} s) lasts"

tried=0 clear=0 crashes=0 skipped=0
# try SECTION NAME: one run with NAME's first call failing; count it.
try() {
    local s=$1 name=$2 rc why="" j="$W/f.json"
    rm -f "$j"
    HARNESS_FAULT="$name:1" limit \
        "$HARNESS" --section="$s" "${OPTS[@]}" --json="$j" >"$W/f.out" 2>"$W/f.err"
    rc=$?
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
    elif [ "$rc" -eq 1 ] && ! python3 tests/check_json.py "$j" --expect-incomplete >"$W/cj" 2>&1; then
        why="JSON: $(head -2 "$W/cj" | tr '\n' ' ')"
    elif [ "$rc" -eq 3 ] && ! python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["skipped"] else 1)' "$j" 2>/dev/null; then
        why="exit 3 but the JSON lists no skipped section"
    fi
    if [ -z "$why" ]; then
        clear=$((clear + 1))
        echo "ok   $s $name:1 exit $rc: $(grep -m1 -E "${name}[(:]" "$W/f.err" | cut -c1-200)" >>"$LOG"
    else
        say "FAIL $s $name:1: $why"
        sed 's/^/    /' "$W/f.err" | tail -8 | tee -a "$LOG"
    fi
}
while read -r s name; do try "$s" "$name"; done <"$W/first"
while read -r s name; do
    if awk -v e="$(sub "$(now)" "$start")" -v b="$BUDGET" 'BEGIN { exit !(e > b) }'; then
        skipped=$((skipped + 1))
        continue
    fi
    try "$s" "$name"
done <"$W/rest"
[ "$skipped" -gt 0 ] && say "budget spent: $skipped further (section, entry point) runs not tried"
say "time: $(sub "$(now)" "$start") s"
say "fault walk: $tried call sites tried, $clear clear errors, $crashes crashes"
[ "$crashes" -eq 0 ] && [ "$clear" -eq "$tried" ] && [ "$tried" -gt 0 ]
