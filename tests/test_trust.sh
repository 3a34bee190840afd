#!/bin/sh
# test_trust.sh: the harness under hostile input, round 3 (a program's
# output and process tree, the output paths, the standard descriptors, the
# bytes the JSON records), on the CPU with tests/trust_program.py:
#   ready     a back-reference, a pattern over 4000 bytes: refused at start;
#             --ready over a 1 MiB line with the worst pattern found: a
#             SIGTERM answered within 1 s; a 50 MiB flood: the ready line
#             dated within 20 ms of its writing (200 ms here, a loaded
#             machine's margin; the figure is printed); a last line without
#             a newline, a line after a NUL, a line past the first 64 KiB
#             with an exit at once: matched; an earlier run's output in the
#             kept directory: not matched;
#   descriptors stdout and stderr closed at start: the exit code of a whole
#             run every time, no busy wait, the JSON written;
#   bytes     bytes that are not UTF-8 in an environment value and in an
#             argument: valid JSON; an argument of 5,000 bytes; an ESC and
#             a newline in CUDA_INJECTION64_PATH's warning;
#   paths     an output naming stdout by another name, --program-output
#             as an output, a name too long, two outputs on stdout: exit 2
#             before any run; --csv=- and --trace=- on stdout;
#             --schema >/dev/full says why;
#   trees     5,000 setsid descendants: none left, every one counted; 20
#             left in the program's group: all named; a --prepare's
#             leftover said; a --squeeze holder the program stopped: killed
#             at once, said;
#   sides     --compare A --vs B with B a bad ELF: exit 2 before any run;
#   scripts   a .gz bomb and /dev/zero: one line, exit 2; a forged key
#             escaped; tests/fuzz_scripts.py over a stored file;
#   smaller   the probe's variables from the caller stripped; --show-output
#             cut at a NUL, said; 70,000 files in the record directory; the
#             device line without NVML; a full TMPDIR; output not kept gone
#             after each run.
# Each class has checks that failed on the harness before these defences
# (not every check: glibc matched the worst pattern here fast, and its own
# worst, with a back-reference, is now refused at start). Each run is
# bounded (timeout; the SIGTERM case by its own wait, as timeout(1) would
# send a second SIGTERM to the group) so that a harness that blocks fails,
# not hangs.
: "${HARNESS:=./harness}"
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
TP="python3 $(pwd)/tests/trust_program.py"
# The harness by an absolute path, for the runs from another directory.
case $HARNESS in /*) ABS=$HARNESS ;; *) ABS="$(pwd)/$HARNESS" ;; esac
export HARNESS_PROBE=/dev/null
export STANDIN_STATE="$T/state"
mkdir -p "$STANDIN_STATE"
TO="timeout -s KILL 60"

# ready_at FILE: the first ready.at of the JSON FILE, in ms.
ready_at() {
    python3 -c "import json, sys
d = json.load(open('$1'))
print([x for x in d['measurements'] if x['key'].endswith('ready.at')][0]['samples'][0])" 2>/dev/null
}

# one_line DESC FILE WORDS: FILE is one line holding WORDS (a usage
# error's "Try 'harness --help'" after it).
one_line() {
    if [ "$(grep -vc "^Try 'harness --help'" "$2")" -eq 1 ] && head -n 1 "$2" | grep -q -F -e "$3"; then
        echo "PASSED $1"
    else
        printf 'FAILED %s (%s)\n' "$1" "$(head -c 300 "$2")"
    fi
}

# --- ready ------------------------------------------------------------------
# A back-reference (glibc backtracks: 51 s for one 3,000-byte line) and a
# pattern longer than the probe's copy of it: refused before any run.
# shellcheck disable=SC2086
$TO "$HARNESS" --rounds=1 --ready='((a*)*)\1x' -- $TP --long-line 1 >"$T/bref.out" 2>"$T/bref.err"
rc=$?
expect_exit "ready: a back-reference refused before any run" 2
one_line "ready: a back-reference: one line, the reason" "$T/bref.err" "back-references"
check "ready: a back-reference: nothing run" test ! -e "$STANDIN_STATE/written"
long=$(python3 -c "print('x' * 4001)")
# shellcheck disable=SC2086
$TO "$HARNESS" --rounds=1 --ready="$long" -- $TP >"$T/long.out" 2>"$T/long.err"
rc=$?
expect_exit "ready: a pattern of 4001 bytes (the probe's copy held 4000) refused" 2
one_line "ready: a pattern of 4001 bytes: one line, its length" "$T/long.err" "(4001 bytes): not taken: 4001 bytes, more than 4000"
# shellcheck disable=SC2086
rm -f "$STANDIN_STATE/written"
secs=$(python3 - "$STANDIN_STATE" "$T/term.err" "$HARNESS" --rounds=1 --warmup=0 --json="$T/term.json" \
    --ready='(a|a?|.){1,150}(a*)*b{0,40}x' -- $TP --long-line 1 --sleep 30 <<'EOF'
import os, signal, subprocess, sys, time
state = sys.argv[1]
p = subprocess.Popen(sys.argv[3:], stdout=subprocess.DEVNULL, stderr=open(sys.argv[2], "w"))
t = time.monotonic()
while not os.path.exists(os.path.join(state, "written")) and time.monotonic() - t < 30:
    time.sleep(0.01)
time.sleep(0.5)
t0 = time.monotonic()
p.send_signal(signal.SIGTERM)
try:
    rc = p.wait(timeout=30)
except subprocess.TimeoutExpired:
    p.kill()
    rc = -1
print("%.3f %d" % (time.monotonic() - t0, rc))
EOF
)
echo "  a SIGTERM while --ready matches the worst pattern over a 1 MiB line: answered in ${secs% *} s"
check "ready: the worst pattern over a 1 MiB line: a SIGTERM answered within 1 s (exit 143)" \
    sh -c "[ '${secs#* }' = 143 ] && awk 'BEGIN { exit !(${secs% *} < 1) }'"
check "ready: after that SIGTERM, the JSON written, marked incomplete" python3 -c "import json
d = json.load(open('$T/term.json')); assert d['incomplete'] is True and 'SIGTERM' in d['environment']['stopped']"
rm -f "$STANDIN_STATE/ready_ns"
# shellcheck disable=SC2086
$TO "$HARNESS" --rounds=1 --warmup=0 --ready=READY --json="$T/flood.json" -- $TP --flood 50 --sleep 0.3 \
    >"$T/flood.out" 2>"$T/flood.err"
at=$(ready_at "$T/flood.json")
wrote=$(python3 -c "print(int(open('$STANDIN_STATE/ready_ns').read()) / 1e6)" 2>/dev/null)
echo "  50 MiB of output, then the ready line: written at ${wrote:-?} ms, dated ${at:-?} ms"
check "ready: after 50 MiB of output, the ready line dated within 200 ms of its writing, never before it" \
    python3 -c "assert 0 <= $at - $wrote < 200"
for mode in tail after-nul boundary; do
    # shellcheck disable=SC2086
    $TO "$HARNESS" --rounds=1 --warmup=0 --ready='READY$' --json="$T/$mode.json" -- $TP --$mode \
        >"$T/$mode.out" 2>"$T/$mode.err"
    check "ready: the line matched: --$mode" python3 -c "assert $(ready_at "$T/$mode.json") > 0"
done
# An earlier run's output, left in the kept directory, is not this run's.
mkdir -p "$T/kept"
# shellcheck disable=SC2086
$TO "$HARNESS" --rounds=1 --warmup=0 --ready=READY --program-output="$T/kept" -- $TP --flood 1 \
    >/dev/null 2>&1
rm -f "$STANDIN_STATE/ready_ns"
# shellcheck disable=SC2086
$TO "$HARNESS" --rounds=1 --warmup=0 --ready=READY --program-output="$T/kept" --json="$T/stale.json" \
    -- $TP --flood 1 --sleep 0.5 >/dev/null 2>&1
at=$(ready_at "$T/stale.json")
wrote=$(python3 -c "print(int(open('$STANDIN_STATE/ready_ns').read()) / 1e6)" 2>/dev/null)
check "ready: an earlier run's ready line in the kept output directory: not this run's (dated ${at:-?} ms, written ${wrote:-?})" \
    python3 -c "assert $at >= $wrote"

# --- descriptors ----------------------------------------------------------------
# Started with stdout and stderr closed: the signal pipe and the output files
# must not land on 1 and 2 (messages into the pipe, every wait busy, the exit
# code 1 or 3 by chance). Three runs of a program that sleeps 2 s.
# shellcheck disable=SC2086
$TO "$HARNESS" --rounds=1 --warmup=0 --json="$T/fd0.json" -- $TP --sleep 0.1 >/dev/null 2>&1
want=$?
res=$(python3 - $TO "$HARNESS" --rounds=1 --warmup=0 --json="$T/fd.json" -- $TP --sleep 2 <<'EOF2'
import resource, subprocess, sys
codes = []
for _ in range(3):
    codes.append(subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=None, stderr=None,
                                pass_fds=(), close_fds=True,
                                preexec_fn=lambda: [__import__("os").close(f) for f in (1, 2)]).returncode)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(" ".join(map(str, codes)), "%.2f" % (ru.ru_utime + ru.ru_stime))
EOF2
)
echo "  stdout and stderr closed, 3 runs of a 2 s program: exit codes and CPU seconds: $res (a whole run: exit $want)"
check "descriptors: stdout and stderr closed: the exit code of a whole run, 3 times out of 3" \
    test "$res" != "" -a "${res% *}" = "$want $want $want"
check "descriptors: stdout and stderr closed: no busy wait (under 3 s of CPU for 3 runs of 2 s)" \
    awk "BEGIN { exit !(${res##* } < 3) }"
check "descriptors: stdout and stderr closed: the JSON written" python3 -c "import json; json.load(open('$T/fd.json'))"

# --- bytes ----------------------------------------------------------------------
# Bytes that are not UTF-8 in an environment value the JSON records and in
# a program argument; an argument of 5,000 bytes; an ESC in
# CUDA_INJECTION64_PATH's warning.
long=$(python3 -c "print('y' * 5000)")
# shellcheck disable=SC2086
CUDA_CACHE_PATH=$(printf '/tmp/\377\376') CUDA_INJECTION64_PATH=$(printf '/x\033[2J\nharness: forged') \
    $TO "$HARNESS" --rounds=1 --warmup=0 --json="$T/bytes.json" -- $TP "$(printf 'a\351b\303')" "$long" \
    >"$T/bytes.out" 2>"$T/bytes.err"
check "bytes: not UTF-8 in CUDA_CACHE_PATH and an argument: valid JSON, each such byte as its \\u00XX" \
    python3 -c "import json
d = json.load(open('$T/bytes.json', encoding='utf-8'))
e = d['environment']
assert e['CUDA_CACHE_PATH'] == '/tmp/\\u00ff\\u00fe' and 'a\\u00e9b\\u00c3' in e['program_command'], e['CUDA_CACHE_PATH']"
check "bytes: an argument of 5,000 bytes: command_line whole, program_command's cut said" \
    python3 -c "import json
e = json.load(open('$T/bytes.json', encoding='utf-8'))['environment']
assert e['command_line'].endswith(' ' + 'y' * 5000) and e['program_command'].endswith('[cut here: command_line holds the whole]')"
check "bytes: scripts/compare reads that JSON" python3 scripts/compare "$T/bytes.json" "$T/bytes.json"
check "bytes: CUDA_INJECTION64_PATH's ESC and newline not printed raw" \
    sh -c "grep -q 'CUDA_INJECTION64_PATH=/x.x1b.2J.x0aharness: forged is set' '$T/bytes.err' && ! grep -q \"\$(printf '\\033')\" '$T/bytes.err' && ! grep -q '^harness: forged' '$T/bytes.err'"

# --- paths ----------------------------------------------------------------------
# Each refused before any run (exit 2, one line), stdout a pipe as in a
# script: an output naming stdout by another name, the program's output
# directory, a name too long for the temporary file beside it, two on stdout.
long=$(python3 -c "print('n' * 250)")
mkdir -p "$T/paths"
ln -s "$T/paths/stdout.txt" "$T/paths/link.json"
n=0
for args in "--json=- --preload-list=/dev/stdout|is the harness's stdout" \
            "--trace=/proc/self/fd/1|is the harness's stdout" \
            "--json=$T/paths/D --program-output=$T/paths/D|is the directory of the program's output" \
            "--csv=$T/paths/r.json.program --json=$T/paths/r.json|is the directory of the program's output" \
            "--json=$T/paths/$long|its name is 250 bytes" \
            "--json=- --csv=-|both name stdout" \
            "--markdown=- --trace=-|both name stdout"; do
    n=$((n + 1))
    words=${args##*|}
    # shellcheck disable=SC2086
    ($TO "$HARNESS" --rounds=1 ${args%|*} -- $TP --flood 1 2>"$T/paths/$n.err"; echo $? >"$T/paths/$n.rc") | cat >"$T/paths/$n.out"
    rc=$(cat "$T/paths/$n.rc")
    expect_exit "paths: ${args%|*}: refused before any run" 2
    one_line "paths: ${args%|*}: one line: $words" "$T/paths/$n.err" "$words"
done
# shellcheck disable=SC2086
$TO "$HARNESS" --rounds=1 --json="$T/paths/link.json" -- $TP >"$T/paths/stdout.txt" 2>"$T/paths/link.err"
rc=$?
expect_exit "paths: --json a link to the file stdout goes to: refused" 2
one_line "paths: --json a link to stdout's file: one line" "$T/paths/link.err" "is the harness's stdout"
for opt in csv trace; do
    # shellcheck disable=SC2086
    (cd "$T/paths" && $TO "$ABS" --rounds=1 --warmup=0 --$opt=- -- $TP >"$T/paths/$opt.out" 2>"$T/paths/$opt.err")
    check "paths: --$opt=- writes to stdout alone (no file named '-'), the tables to stderr" \
        sh -c "[ ! -e '$T/paths/-' ] && grep -q 'exit code' '$T/paths/$opt.err' && ! grep -q 'exit code' '$T/paths/$opt.out' && [ -s '$T/paths/$opt.out' ]"
done
check "paths: --csv=-: the CSV on stdout" sh -c "head -1 '$T/paths/csv.out' | grep -q '^section,key,name'"
check "paths: --trace=-: the trace on stdout" python3 -c "import json; assert json.load(open('$T/paths/trace.out'))['traceEvents']"
"$HARNESS" --schema >/dev/full 2>"$T/paths/full.err"
rc=$?
expect_exit "paths: --schema >/dev/full: exit 1" 1
one_line "paths: --schema >/dev/full: says why" "$T/paths/full.err" "--schema: cannot write to stdout: No space left on device"

# --- trees ----------------------------------------------------------------------
# 5,000 children each in a session of its own (the table held 4,096: about
# 900 were left running, unnamed), and 20 in the program's own group (the
# group was killed before /proc was read: 5 to 20 of them named).
rm -f "$STANDIN_STATE/kids"
# shellcheck disable=SC2086
timeout -s KILL 200 "$HARNESS" --rounds=1 --warmup=0 -- $TP --setsid 5000 >"$T/tree.out" 2>"$T/tree.err"
left=$(kill_left "$STANDIN_STATE/kids")
echo "  5,000 setsid descendants: $left left running after the harness"
check "trees: 5,000 setsid descendants: none left running" test "$left" -eq 0 -a -s "$STANDIN_STATE/kids"
check "trees: 5,000 setsid descendants: every one counted in each run, those not named counted too" \
    python3 -c "import re
for line in open('$T/tree.err'):
    if 'still running' not in line: continue
    n = int(re.search(r'(\\d+) processes of the program still running', line).group(1))
    named = len(re.findall(r'pid \\d+ \\([^)]*\\)', line))
    more = int(re.search(r'and (\\d+) more', line).group(1))
    # named by the command they run: sleep, or python3 for one that was
    # spawned and not yet through its exec (a loaded machine)
    assert n == 5000 and named + more == 5000, (n, named, more)
    ok = True
assert ok"
# Pids used again (a pid_max of 32,768 wraps in a test run: .ci/run lost
# setsid children so): a descendant on the pid of one that ended, and one on
# the pid of a process that ran beside the harness when it began; both were
# taken for what the pid had been, never counted, left running.
rm -f "$STANDIN_STATE/reused"
sleep 1 &
other=$!
# shellcheck disable=SC2086
$TO "$HARNESS" --rounds=1 --warmup=0 -- $TP --reuse "$other" >"$T/reuse.out" 2>"$T/reuse.err"
wait
if grep -q none "$STANDIN_STATE/reused" 2>/dev/null; then
    echo "SKIPPED trees: pids used again: ns_last_pid cannot be written here"
else
    left=$(kill_left "$STANDIN_STATE/reused")
    check "trees: pids used again: none left running ($left left)" test "$left" -eq 0
    check "trees: pids used again: each run's two named" python3 -c "import re
runs = [l.split() for l in open('$STANDIN_STATE/reused')]
lines = [l for l in open('$T/reuse.err') if 'still running' in l]
assert len(runs) == 2 and len(lines) == 2, (runs, lines)
for pids, line in zip(runs, lines):
    assert all(re.search(r'pid %s \\(sleep\\)' % p, line) for p in pids), (pids, line)"
fi
# shellcheck disable=SC2086
$TO "$HARNESS" --rounds=1 --warmup=0 -- $TP --group 20 >"$T/group.out" 2>"$T/group.err"
check "trees: 20 children left in the program's own group: all 20 named, in each run" \
    python3 -c "import re
lines = [l for l in open('$T/group.err') if 'still running' in l]
assert len(lines) == 2 and all(l.count('(sleep)') == 20 and ' 20 processes' in l for l in lines), lines"
# shellcheck disable=SC2086
$TO "$HARNESS" --rounds=1 --warmup=0 --prepare='sleep 30 & echo started' -- $TP >"$T/prep.out" 2>"$T/prep.err"
expect_grep "trees: a --prepare that leaves a process running: its end said, named" \
    "prepare: --prepare: 1 process it started still running 2 s after it exited was killed (SIGKILL), as every process of it is: pid [0-9]* (sleep)" "$T/prep.err"
# A program that stops the --squeeze memory holder (SIGSTOP): each run
# waited 10 s in silence for it to end (on the stand-in driver).
if [ -e "${FAKECUDA:=build/libfakecuda.so}" ]; then
    mkdir -p "$T/mem"
    t0=$(date +%s)
    # shellcheck disable=SC2086
    HARNESS_LIBCUDA="$(cd "$(dirname "$FAKECUDA")" && pwd)/$(basename "$FAKECUDA")" FAKE_CUDA_FREE_MIB=1000 \
        FAKE_CUDA_MEM_DIR="$T/mem" $TO "$HARNESS" --rounds=1 --warmup=0 --squeeze=500 -- $TP --stop-holder \
        >"$T/stop.out" 2>"$T/stop.err"
    secs=$(($(date +%s) - t0))
    check "trees: a stopped --squeeze holder: two runs in under 10 s ($secs s; each waited 10 s)" test "$secs" -lt 10
    expect_grep "trees: a stopped --squeeze holder: said, killed" \
        "the memory holder (pid [0-9]*) was stopped (SIGSTOP: by the program?) when released, so it could not end; it was killed" \
        "$T/stop.err"
else
    echo "FAILED trees: a stopped --squeeze holder: the stand-in libcuda ($FAKECUDA, built by make) is missing"
fi

# --- sides ------------------------------------------------------------------------
# --compare A --vs B with a B execve refuses: A's runs all ran first, then exit 1.
printf '\177ELF\002\001\001\000garbage' >"$T/badelf"
chmod +x "$T/badelf"
rm -f "$STANDIN_STATE/written"
# shellcheck disable=SC2086
$TO "$HARNESS" --rounds=1 --compare -- $TP --long-line 0 --vs "$T/badelf" >"$T/vs.out" 2>"$T/vs.err"
rc=$?
expect_exit "sides: --compare A --vs B, B a bad ELF: refused before any run" 2
one_line "sides: --compare A --vs B, B a bad ELF: one line, the reason" "$T/vs.err" \
    "--compare: command 2, $T/badelf: cannot be run: a truncated ELF header"
check "sides: --compare A --vs B, B a bad ELF: A not run" test ! -e "$STANDIN_STATE/written"

# --- scripts ----------------------------------------------------------------------
# A 4 MiB .json.gz of 4 GiB of zeros and /dev/zero (a MemoryError traceback
# at about 3 GB); a key holding an ESC and a newline (a forged line); the
# reader and compare over 400 mutations of a stored file.
python3 -c "import gzip
with gzip.open('$T/bomb.json.gz', 'wb', compresslevel=9) as f:
    z = bytes(1 << 24)
    for _ in range(256):
        f.write(z)"
for s in compare plot node-summary; do
    case $s in
        compare) set -- "$T/bomb.json.gz" "$T/bomb.json.gz" ;;
        plot) set -- "$T/bomb.json.gz" --out "$T/figs" ;;
        node-summary) set -- "$T/bomb.json.gz" ;;
    esac
    python3 "scripts/$s" "$@" >"$T/bomb.out" 2>"$T/bomb.err"
    rc=$?
    check "scripts: $s on a .gz of 4 GiB: refused, exit 2" test "$rc" -eq 2
    expect_grep "scripts: $s on a .gz of 4 GiB: the cap said" "more than 128 MiB once inflated: not read" "$T/bomb.err"
done
python3 scripts/compare /dev/zero /dev/zero >"$T/zero.out" 2>"$T/zero.err"
rc=$?
expect_exit "scripts: compare /dev/zero: refused" 2
one_line "scripts: compare /dev/zero: one line" "$T/zero.err" "compare: /dev/zero: more than 128 MiB: not read"
python3 - "$T/forged.json" <<'EOF2'
import json, sys
d = json.load(open("results/h200-program-cost.json"))
x = dict(d["measurements"][0])
x["key"] = "forged\x1b[2J\nSLOWER  everything"
d["measurements"].append(x)
json.dump(d, open(sys.argv[1], "w"))
EOF2
python3 scripts/compare results/h200-program-cost.json "$T/forged.json" >"$T/forged.out" 2>&1
check "scripts: a key with an ESC and a newline: printed as \\x1b and \\x0a, no line forged" \
    sh -c "grep -q 'only in B: program/forged.x1b.2J.x0aSLOWER  everything' '$T/forged.out' && ! grep -q \"\$(printf '\\033')\" '$T/forged.out' && ! grep -q '^SLOWER  everything' '$T/forged.out'"
python3 tests/fuzz_scripts.py results/h200-program-cost.json 400

# --- smaller ----------------------------------------------------------------------
# The probe's variables from the caller's environment (SPANS reached bare
# runs too); --show-output cut at a NUL without a word.
# shellcheck disable=SC2086
HARNESS_PROBE_SPANS=5 HARNESS_PROBE_READY=x $TO "$HARNESS" --rounds=1 --warmup=0 --program-output="$T/env" \
    -- sh -c 'env | grep "^HARNESS_PROBE_[RS]" || true' >"$T/strip.out" 2>"$T/strip.err"
check "smaller: HARNESS_PROBE_SPANS and _READY from the caller reach no run (probed or bare)" \
    sh -c "! cat '$T'/env/*.out | grep -q 'HARNESS_PROBE_SPANS=5\|HARNESS_PROBE_READY=x' && [ \$(ls '$T'/env/*.out | wc -l) -ge 2 ]"
expect_grep "smaller: the caller's HARNESS_PROBE_SPANS: its removal said" \
    "HARNESS_PROBE_SPANS=5 in the environment is the harness's own variable: removed" "$T/strip.err"
# shellcheck disable=SC2086
$TO "$HARNESS" --rounds=1 --warmup=0 --show-output -- $TP --after-nul >"$T/nul.out" 2>"$T/nul.err"
expect_grep "smaller: --show-output cut at a NUL: said" "cut at byte 5, a NUL byte: the 8 bytes from it on not shown" "$T/nul.out"
# 70,000 files in the record directory ("process 0"), and a refused record
# followed by "No CUDA process".
# shellcheck disable=SC2086
$TO "$HARNESS" --rounds=1 --warmup=0 -- $TP --files 70000 >"$T/files.out" 2>"$T/files.err"
expect_grep "smaller: 70,000 files in the record directory: the directory named, not 'process 0'" \
    "every CUDA process's record read: the record directory: more than 65536 entries" "$T/files.out"
check "smaller: 70,000 files: no 'process 0', no 'No CUDA process' after the refusal" \
    sh -c "! grep -q 'process 0\|No CUDA process' '$T/files.out' && grep -q 'No record was read: 1 refused' '$T/files.out'"
# Without NVML the device line gave the same reason five times.
# shellcheck disable=SC2086
$TO "$HARNESS" --rounds=1 --warmup=0 -- $TP >"$T/dev.out" 2>"$T/dev.err"
check "smaller: the device line without NVML: one reason, said once" python3 -c "import re
t = ' '.join(open('$T/dev.out').read().split())
line = t[t.index('Device:'):t.index('CUPTI:', t.index('Device:'))]
assert line.count('NVML not available') == 1, line"
# A full TMPDIR: every run "exited with 1" with no reason. A 64 KiB tmpfs,
# where this user may mount one (root); not tried elsewhere.
mkdir -p "$T/full"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=64k tmpfs "$T/full" 2>/dev/null; then
    dd if=/dev/zero of="$T/full/fill" bs=4k count=100 2>/dev/null
    env_set TMPDIR "$T/full"
    # shellcheck disable=SC2086
    $TO "$HARNESS" --rounds=1 --warmup=0 -- $TP --flood 1 >"$T/fullrun.out" 2>"$T/fullrun.err"
    env_restore TMPDIR
    umount "$T/full"
    expect_grep "smaller: a full TMPDIR: the reason said before the runs" \
        "0 KiB free on its file system: the program's stdout and stderr cannot be written there" "$T/fullrun.err"
else
    echo "PASSED smaller: a full TMPDIR: not tried (mounting a small tmpfs needs root)"
fi
# Output not kept piled up in TMPDIR until the end (5.6 GB for 4 runs of
# 1.5 GB): 6 runs of 2 MiB each; at its start each run finds the first
# run's output alone (--show-output reads it), not every earlier run's.
rm -f "$STANDIN_STATE/du"
# shellcheck disable=SC2086
$TO "$HARNESS" --rounds=3 --max-rounds=3 --warmup=0 -- $TP --du --flood 2 >"$T/du.out" 2>"$T/du.err"
du=$(cat "$STANDIN_STATE/du" 2>/dev/null)
echo "  6 runs of 2 MiB of output not kept: at most ${du:-?} bytes found beside a run (10,484,680 before)"
check "smaller: output not kept goes after each run: a run finds at most the first run's beside it" \
    test "${du:-99999999}" -le 3000000
# A program that leaves a sparse 100 GiB stdout: the look after the run is
# bounded (2 s a run), and the cut said.
t0=$(date +%s)
# shellcheck disable=SC2086
$TO "$HARNESS" --rounds=1 --warmup=0 --ready=READY -- $TP --sparse 100 >"$T/sparse.out" 2>"$T/sparse.err"
secs=$(($(date +%s) - t0))
check "ready: a sparse 100 GiB stdout: two runs in under 15 s ($secs s)" test "$secs" -lt 15
expect_grep "ready: a sparse 100 GiB stdout: the cut said" "was not matched to its end within 2000 ms" "$T/sparse.err"
