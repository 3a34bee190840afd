#!/bin/sh
# test_scripts.sh: what every Python script in scripts/ shares: argparse's
# command line as jq's (--help its text on stdout, exit 0; a usage error one
# line on stderr naming the script, exit 2; phases without a log too), and
# the key schema (build/schema.json, ./harness --schema as make writes it):
# every key the scripts read is declared in it, harness_json.Key fills and
# matches keys by its patterns, and a key it lacks, a schema that is missing
# or not one, is one line and exit 2 before any file is read. With the
# stand-in driver (FAKECUDA, HARNESS): phases on a run's phase log, and
# ncu-bytes on a stand-in ncu (tests/standin_ncu.py). Run from the
# repository root. Ends with "scripts: N passed, N failed".
: "${HARNESS:=./harness}"
# shellcheck source=tests/lib.sh
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT

# run_script OUT ERR SCRIPT ARGS...: run python3 scripts/SCRIPT, set $rc.
run_script() {
    out=$1
    err=$2
    shift 2
    s=$1
    shift
    python3 "scripts/$s" "$@" >"$out" 2>"$err"
    # shellcheck disable=SC2034  # read by expect_exit in tests/lib.sh
    rc=$?
}

# one_line FILE: FILE holds exactly one line.
one_line() {
    test "$(wc -l <"$1")" -eq 1
}

{
for s in compare plot node-summary ncu-bytes phases; do
    run_script "$T/h.out" "$T/h.err" "$s" --help
    expect_exit "$s --help" 0
    check "$s --help: its text on stdout, nothing on stderr" sh -c \
        "grep -q '^$s\\|^Usage: scripts/$s\\|^$s:' '$T/h.out' && test ! -s '$T/h.err'"
    run_script "$T/u.out" "$T/u.err" "$s" --no-such-option results/h200.json
    expect_exit "$s --no-such-option: a usage error" 2
    check "$s --no-such-option: one line on stderr names the script and its usage, nothing on stdout" \
        sh -c "test \"\$(wc -l <'$T/u.err')\" -eq 1 && grep -q '^$s: .*--no-such-option.* (usage: scripts/$s' '$T/u.err' && test ! -s '$T/u.out'"
done
run_script "$T/p.out" "$T/p.err" phases
expect_exit "phases without a log: a usage error" 2
expect_grep "phases without a log: says so" "^phases: needs the log HARNESS_PHASE_LOG wrote (usage: scripts/phases LOG)$" "$T/p.err"
check "phases without a log: one line" one_line "$T/p.err"
run_script "$T/p.out" "$T/p.err" phases a.log b.log
expect_exit "phases with two logs: a usage error" 2
expect_grep "phases with two logs: names the second" "^phases: one log only, not also b.log" "$T/p.err"
run_script "$T/n.out" "$T/n.err" ncu-bytes --ncu
expect_exit "ncu-bytes --ncu without a path: a usage error" 2
expect_grep "ncu-bytes --ncu without a path: names it" "^ncu-bytes: unknown argument '--ncu' (usage: " "$T/n.err"
run_script "$T/n.out" "$T/n.err" node-summary results/h200.json --threshold=0
expect_exit "node-summary --threshold=0: a usage error" 2
expect_grep "node-summary --threshold=0: says what it needs" "^node-summary: --threshold=P needs a percentage above 0, not '0' (usage: " "$T/n.err"

# The key schema: every Key the scripts read is declared; Key's patterns.
check "every key plot, compare and ncu-bytes read is declared in build/schema.json" python3 -c "
import importlib.util, sys
from importlib.machinery import SourceFileLoader
sys.path.insert(0, 'scripts')
import harness_json as hj, harness_plot
for name in ('compare', 'ncu-bytes'):
    spec = importlib.util.spec_from_loader(name, SourceFileLoader(name, 'scripts/' + name))
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
assert len(hj.KEYS) > 50, len(hj.KEYS)
hj.check_keys()"
check "harness_json.Key: fills, matches and globs keys by the schema's patterns" python3 -c "
import sys
sys.path.insert(0, 'scripts')
import harness_json as hj
k = hj.Key('crossover', 'n=<N>.cpu')
assert k(1024) == 'n=1024.cpu' and k.match('n=1024.cpu') == ['1024'], k.match('n=1024.cpu')
assert k.match('n=1024.kernel') is None and k.match('n=x.cpu') is None
assert (k.glob(), k.glob(whole=True)) == ('n=*.cpu', '*.cpu')
s = hj.Key('fusion', 'n=<N>.', start=True)
assert s(5, 'fused') == 'n=5.fused' and s.match('n=5.fused.cold') == ['5', 'fused.cold']
l = hj.Key('loading', '<pre><module>.<word>.load')
assert l.match('eager.synth10.cubin.load') == ['eager.', 'synth10', 'cubin']
assert l.match('synth1.ptx.load') == ['', 'synth1', 'ptx'] and l.match('lazy.module.0.mod.load') is None
d = hj.Key('program', 'ready.<side>.<i>', derived=True)
assert d('lazy', 3) == 'ready.lazy.3' and d.match('ready.bare.eager.12') == ['bare.eager', '12']
r = hj.load('results/h200.json')
assert [p for p, m in k.find(r)][:2] == [['1024'], ['65536']], k.find(r)[:2]
hj.check_keys()"
python3 -c 'import json, sys
d = json.load(open("build/schema.json"))
for s in d["sections"]:
    if s["section"] == "fusion":
        s["derived"] = [k for k in s["derived"] if k["key"] != "copy_floor"]
json.dump(d, open(sys.argv[1], "w"))' "$T/nofloor.json"
env_set HARNESS_SCHEMA "$T/nofloor.json"
run_script "$T/s.out" "$T/s.err" plot results/h200.json --out "$T/figs"
expect_exit "plot with a schema without a key it reads: exit 2" 2
expect_grep "plot with a schema without a key it reads: one line names the key" \
    "^plot: $T/nofloor.json: fusion derived key copy_floor is not declared: " "$T/s.err"
check "plot with a schema without a key it reads: one line, no figure directory" \
    sh -c "test \"\$(wc -l <'$T/s.err')\" -eq 1 && test ! -e '$T/figs'"
export HARNESS_SCHEMA="$T/none.json"
run_script "$T/s.out" "$T/s.err" compare results/h200.json results/h200-2.json
expect_exit "compare without a schema: exit 2" 2
expect_grep "compare without a schema: one line says where it looked and how to make one" \
    "^compare: no key schema: no $T/none.json (make writes build/schema.json; or ./harness --schema >FILE and HARNESS_SCHEMA=FILE)$" "$T/s.err"
export HARNESS_SCHEMA=results/h200.json
run_script "$T/s.out" "$T/s.err" plot results/h200.json --out "$T/figs"
expect_exit "plot with a results file for a schema: exit 2" 2
expect_grep "plot with a results file for a schema: says it is not one" \
    "^plot: results/h200.json: not a key schema (./harness --schema)" "$T/s.err"
env_restore HARNESS_SCHEMA

# On the stand-in driver: a phase log, and ncu-bytes on a stand-in ncu.
if [ -n "${FAKECUDA:-}" ] && [ -e "$FAKECUDA" ] && [ -x "$HARNESS" ]; then
    FAKE=$(cd "$(dirname "$FAKECUDA")" && pwd)/$(basename "$FAKECUDA")
    HARNESS_LIBCUDA=$FAKE HARNESS_PHASE_LOG="$T/phases.log" "$HARNESS" --section=visible \
        --rounds=2 >/dev/null 2>&1
    run_script "$T/ph.out" "$T/ph.err" phases "$T/phases.log"
    expect_exit "phases on a run's phase log" 0
    expect_grep "phases: the parent, one process" "^parent: 1 process$" "$T/ph.out"
    expect_grep "phases: section visible's children, by their first line" "^visible: [0-9]* processes$" "$T/ph.out"
    FAKECUDA=$FAKE run_script "$T/nc.out" "$T/nc.err" ncu-bytes --ncu tests/standin_ncu.py \
        --harness "$HARNESS" --out "$T/ncu"
    expect_exit "ncu-bytes on a stand-in ncu" 0
    expect_grep "ncu-bytes: the main n the section stored" \
        "^DRAM traffic per element at n = 16777216: Nsight Compute against the harness's model$" "$T/nc.out"
    expect_grep "ncu-bytes: a kernel alone in a version, its model (copyFloat: 8 B)" \
        "^  copyFloat  *65536  *4\\.00  *3\\.00  *7\\.00  *8$" "$T/nc.out"
    expect_grep "ncu-bytes: a kernel first in a pair, the pair's model named" \
        "^  pairScaleGelu .* 20 (pair)$" "$T/nc.out"
    expect_grep "ncu-bytes: a kernel in no version, no model" "^  someOther .* -$" "$T/nc.out"
    check "ncu-bytes --out: ncu's CSV kept" grep -q '"Kernel Name"' "$T/ncu/ncu.csv"
else
    echo "SKIPPED phases and ncu-bytes on the stand-in driver: no FAKECUDA or harness"
fi
} >"$T/log" 2>&1
summary "$T/log" scripts
