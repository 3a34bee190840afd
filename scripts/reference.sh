#!/bin/sh
# reference.sh: regenerate the reference run in results/ on a GPU machine:
# the default run (table, JSON, CSV, Chrome trace), section loading in each
# mode, and two --compare-loading runs; each command is written beside its
# output as NAME.cmd, its exit code at the end of NAME.txt. Then the figures
# (scripts/plot) where matplotlib is installed, else the command to make
# them elsewhere from the same files. Run from the repository root after make.
# Installed (harness-reference.sh), it runs the harness beside it and names
# the installed scripts; from the tree, ./harness and scripts/.
# Usage: scripts/reference.sh [PREFIX]   (PREFIX of the file names, default h200)
#        scripts/reference.sh --run NAME ARGS...   one run, kept as results/NAME.*
#        scripts/reference.sh --runs=N NAME ARGS...   N runs one after the other,
#            kept as results/NAME-1.* ... results/NAME-N.*: one side of
#            scripts/compare NAME-*.json -- OTHER-*.json (several runs a side)
set -u
case $(basename "$0") in
harness-*) D=$(dirname "$0"); H=${HARNESS:-$D/harness}; S=harness-; SP=$D/harness- ;;
*) H=${HARNESS:-./harness}; S=scripts/; SP=scripts/ ;;
esac
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
case ${1:-} in
--runs=*)
    n=${1#--runs=}
    case $n in
    '' | *[!0-9]* | 0*) echo "reference.sh: --runs=$n: expected a whole number, 1 to 100" >&2; exit 2 ;;
    esac
    [ "$n" -le 100 ] || { echo "reference.sh: --runs=$n: expected a whole number, 1 to 100" >&2; exit 2; }
    [ $# -ge 2 ] || { echo "reference.sh: --runs=$n needs a NAME" >&2; exit 2; }
    base=$2        # not $name: run() sets that
    shift 2
    i=1
    files=
    while [ "$i" -le "$n" ]; do
        run "$base-$i" "$@"
        files="$files results/$base-$i.json"
        i=$((i + 1))
    done
    echo "$base: $n runs; compare them with another set:"
    echo "  ${S}compare$files -- OTHER-1.json ..."
    exit 0 ;;
esac
P=${1:-h200}
run "$P" --trace="results/$P.trace.json"
gzip -9 -f "results/$P.trace.json"     # Perfetto opens the .gz as it is
run "$P-eager" --section=loading --module-loading=eager
run "$P-lazy" --section=loading --module-loading=lazy
run "$P-compare" --section=loading --compare-loading --rounds=40
run "$P-compare-2" --section=loading --compare-loading --rounds=40
if python3 -c "import matplotlib" 2>/dev/null; then
    "${SP}plot" "results/$P-compare.json" "results/$P.json" --out results/figures
else
    echo "reference.sh: no matplotlib here; make the figures where it is with:"
    echo "  ${S}plot results/$P-compare.json results/$P.json --out results/figures"
fi
