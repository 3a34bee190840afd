#!/bin/sh
# test_progress.sh: the line of progress while runs go on, from a recording
# of a terminal (tests/pty_run.py --raw): built-in --compare-loading on the
# stand-in driver and -- CMD on the stand-in program; every line drawn
# says the runs done of the most, the round of the most, the side running
# now and, after the first run, the time left at most; the runs done count
# up one by one; no child draws a line of its own; nothing of it in a file.
# Prints one PASSED or FAILED line each.
: "${HARNESS:=./harness}"
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT

# lines RAW: the lines drawn on the terminal, one a line ("\r", "\n" and
# ESC [ K apart), those starting "[" (the harness's own).
lines() {
    python3 -c "
import re, sys
d = open(sys.argv[1], 'rb').read().decode(errors='replace').replace('\x1b[K', '')
for s in re.split(r'[\r\n]', d):
    if s.startswith('['): print(s)" "$1"
}

# runs_ok FILE WHAT MAXRUNS MAXROUNDS SIDES: every progress line of FILE for
# WHAT is well formed, names one of SIDES (a regex), counts up from 0 to
# MAXRUNS by one, and gives an estimate from the second line on.
runs_ok() {
    python3 -c "
import re, sys
f, what, most, rounds, sides = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
pat = re.compile(r'^\[ *[0-9.]+ s\] ' + re.escape(what) + r': ([0-9]+) of at most ([0-9]+) runs done, round ([0-9]+) of at most ([0-9]+)(; at most [0-9].* left)?; now (' + sides + ')$')
got = [pat.match(l) for l in open(f).read().split('\n') if l.startswith('[') and ' runs done' in l]
assert got and all(got), [l for l in open(f).read().split('\n') if ' runs done' in l][:3]
done = [int(m.group(1)) for m in got]
assert done == list(range(len(done))), done
assert all(int(m.group(2)) == most and int(m.group(4)) == rounds for m in got), got[0].groups()
assert all(m.group(5) for m in got[1:]) and not got[0].group(5), 'estimate'
assert int(got[-1].group(3)) <= rounds
" "$@"
}

if [ -n "${FAKECUDA:-}" ] && [ -e "$FAKECUDA" ]; then
    env_set HARNESS_LIBCUDA "$FAKECUDA"
    python3 tests/pty_run.py --cols=120 --raw="$T/l.raw" "$HARNESS" --section=loading --compare-loading \
        --rounds=2 >"$T/l.out" 2>&1
    lines "$T/l.raw" >"$T/l.lines"
    check "progress: --compare-loading on a terminal: runs done 0 to 4 of at most 4, rounds of at most 2, EAGER and LAZY, an estimate after the first" \
        runs_ok "$T/l.lines" loading 4 2 'EAGER|LAZY'
    check "progress: --compare-loading: both sides named as they run" sh -c \
        "grep -q 'now EAGER\$' '$T/l.lines' && grep -q 'now LAZY\$' '$T/l.lines'"
    # Between the first run's line and the last, only the runs' lines: a
    # child's phases ("[   0.0 s] loading: opening the device") drew there before.
    check "progress: --compare-loading: no child draws a line of its own over the parent's" sh -c \
        "awk '/runs done/ { last = NR } { l[NR] = \$0 } END { for (i = 1; i <= last; i++) if (seen || l[i] ~ /runs done/) { seen = 1; if (l[i] !~ /runs done/) exit 1 } }' '$T/l.lines'"
    run_harness "$T/f.out" "$T/f.err" --section=loading --compare-loading --rounds=2
    check "progress: stderr a file: no progress in it" sh -c "! grep -q 'runs done\\|\\[ *[0-9.]* s\\]' '$T/f.err'"
    env_restore HARNESS_LIBCUDA
else
    echo "SKIPPED progress: the stand-in libcuda (FAKECUDA) is missing"
fi

V=$("$HARNESS" --version | cut -d' ' -f2)
env_set HARNESS_PROBE /dev/null
env_set STANDIN_STATE "$T"
python3 tests/pty_run.py --cols=120 --raw="$T/p.raw" "$HARNESS" --compare-loading --rounds=2 \
    --max-rounds=3 -- python3 tests/standin_program.py --version "$V" --first-kernel LAZY=300,EAGER=2900 \
    >"$T/p.out" 2>&1
lines "$T/p.raw" >"$T/p.lines"
# Two sides probed and two bare: 4 runs a round in the first 2, 2 in the third.
check "progress: -- CMD on a terminal: runs of at most 10, rounds of at most 3, the side running now" \
    runs_ok "$T/p.lines" program 10 3 'LAZY|EAGER|LAZY bare|EAGER bare'
check "progress: -- CMD: the bare sides named as they run" grep -q 'now LAZY bare$' "$T/p.lines"
# At 80 columns the long line (about 100) would lose its estimate and side
# to the cut: the short form keeps them.
python3 tests/pty_run.py --cols=80 --raw="$T/n.raw" "$HARNESS" --compare-loading --rounds=2 \
    --max-rounds=3 -- python3 tests/standin_program.py --version "$V" --first-kernel LAZY=300,EAGER=2900 \
    >"$T/n.out" 2>&1
lines "$T/n.raw" >"$T/n.lines"
check "progress: at 80 columns, the short form: runs and rounds of the most, the estimate and the bare side whole, within 79 columns" \
    python3 -c "
import re, sys
ls = [l for l in open(sys.argv[1]).read().split('\n') if ' runs ' in l]
pat = re.compile(r'^\[ *[0-9.]+ s\] program: runs ([0-9]+)/10, round [1-3]/3(; at most [0-9][0-9a-z ]* left)?; now (LAZY|EAGER)( bare)?$')
assert ls and all(pat.match(l) and len(l) <= 79 for l in ls), ls[:3]
assert any(l.endswith('now LAZY bare') and 'left' in l for l in ls), ls
" "$T/n.lines"
run_harness "$T/pf.out" "$T/pf.err" --compare-loading --rounds=2 -- python3 tests/standin_program.py \
    --version "$V" --first-kernel LAZY=300,EAGER=2900
check "progress: -- CMD, stderr a file: no progress in it" sh -c "! grep -q 'runs done' '$T/pf.err'"
env_restore STANDIN_STATE
env_restore HARNESS_PROBE
