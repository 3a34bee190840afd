#!/bin/sh
# reference.sh: regenerate the reference run in results/ on a GPU machine:
# the default run (table, JSON, CSV, Chrome trace), section loading in each
# mode, and two --compare-loading runs; each command is written beside its
# output as NAME.cmd, its exit code at the end of NAME.txt. Then the figures
# (scripts/plot) where matplotlib is installed, else the command to make
# them elsewhere from the same files. Run from the repository root after make.
# Usage: scripts/reference.sh [PREFIX]   (PREFIX of the file names, default h200)
#        scripts/reference.sh --run NAME ARGS...   one run, kept as results/NAME.*
set -u
H=${HARNESS:-./harness}
mkdir -p results
[ -x "$H" ] || { echo "reference.sh: $H is not built (make)" >&2; exit 2; }

# run NAME ARGS...: one reference run; prints its last line and time.
run() {
    name=$1
    shift
    cmd="$H $* --json=results/$name.json --csv=results/$name.csv"
    echo "$cmd" >"results/$name.cmd"
    start=$(date +%s)
    $cmd >"results/$name.txt" 2>"results/$name.err"
    echo "exit code $?" >>"results/$name.txt"
    [ -s "results/$name.err" ] || rm -f "results/$name.err"
    echo "$name: $(tail -1 "results/$name.txt"), $(($(date +%s) - start)) s"
}

if [ "${1:-}" = --run ]; then
    shift
    run "$@"
    exit 0
fi
P=${1:-h200}
run "$P" --trace="results/$P.trace.json"
gzip -9 -f "results/$P.trace.json"     # Perfetto opens the .gz as it is
run "$P-eager" --section=loading --module-loading=eager
run "$P-lazy" --section=loading --module-loading=lazy
run "$P-compare" --section=loading --compare-loading --rounds=40
run "$P-compare-2" --section=loading --compare-loading --rounds=40
if python3 -c "import matplotlib" 2>/dev/null; then
    scripts/plot "results/$P-compare.json" "results/$P.json" --out results/figures
else
    echo "reference.sh: no matplotlib here; make the figures where it is with:"
    echo "  scripts/plot results/$P-compare.json results/$P.json --out results/figures"
fi
