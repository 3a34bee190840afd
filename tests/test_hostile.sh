#!/bin/sh
# test_hostile.sh: -- CMD against a program that works against the harness
# (tests/hostile_program.py), one class of attack at a time, on the CPU:
#   blocking  a FIFO as a record, a FIFO as the program's output file;
#   time      a record of 100,000 lines; the record reader's benchmark at
#             the size cap (build/bench_record, under 1 s a record);
#   loss      66 records for 64 places; a record directory of mode 0 (as an
#             unprivileged user, where the test can become one); a failed
#             run and a refused record leave "incomplete" true;
#   survivors a setsid child, SIGHUP, SIGQUIT and SIGKILL to the harness;
#   trust     a whole record of pid 1; the record directory replaced by a
#             link; a relative TMPDIR with a program that changes directory;
#   outputs   --json=-, --json=FIFO, --json=/dev/full (the closing line's
#             exit code), two runs on one --json, %n holding '..' or a
#             control character;
#   refusal   a bad ELF and a missing #! interpreter: exit 2, nothing run.
# Every check here failed on the harness before these defences. Each run
# is bounded (timeout) so that a harness that blocks fails, not hangs.
: "${HARNESS:=./harness}"
: "${BENCH:=}"
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
V=$("$HARNESS" --version | cut -d' ' -f2)
# The harness by an absolute path, for the runs from another directory.
case $HARNESS in /*) ABS=$HARNESS ;; *) ABS="$(pwd)/$HARNESS" ;; esac
HP="python3 $(pwd)/tests/hostile_program.py --version $V"
export HARNESS_PROBE=/dev/null
if python3 -c "import ctypes; ctypes.CDLL('libcuda.so.1')" 2>/dev/null; then OK=0; else OK=3; fi
export STANDIN_STATE="$T/state"
mkdir -p "$STANDIN_STATE" "$T/tmp"
# Every run's temporary directories under $T/tmp, to be found empty after it.
env_set TMPDIR "$T/tmp"
TO="timeout -s KILL 60"

# py FILE CODE: CODE's asserts on the JSON FILE as d.
py() {
    python3 -c "import json, sys
d = json.load(open('$1'))
def m(k): return [x for x in d['measurements'] if x['section'] == 'program' and x['key'] == k]
$2" >/dev/null 2>&1
}

# hrun NAME ARGS...: the harness, bounded; $rc, $secs.
hrun() {
    name=$1
    shift
    t0=$(date +%s)
    $TO "$HARNESS" "$@" >"$T/$name.out" 2>"$T/$name.err"
    rc=$?
    secs=$(($(date +%s) - t0))
}

# tmp_empty: nothing of the harness left under $T/tmp.
tmp_empty() {
    [ -z "$(ls -A "$T/tmp")" ]
}

# gone PID: no such process, or only its zombie.
gone() {
    [ -n "$1" ] || return 1
    sleep 0.3
    [ ! -e "/proc/$1" ] || grep -q '^State:[[:space:]]*Z' "/proc/$1/status"
}

# --- blocking -------------------------------------------------------------
# shellcheck disable=SC2086
hrun fifo --rounds=1 -- $HP --fifo-record
expect_exit "hostile: a FIFO named <pid>.rec: refused, not waited on" 1
expect_grep "hostile: a FIFO as a record: the reason" "a FIFO, not a regular file" "$T/fifo.out"
check "hostile: a FIFO as a record: no directory left" tmp_empty
# shellcheck disable=SC2086
hrun fifoout --rounds=1 --show-output -- $HP --fifo-output
expect_exit "hostile: --show-output, its stdout file replaced by a FIFO: not waited on" "$OK"
expect_grep "hostile: a FIFO as the output: not shown, why" "not shown: .*a FIFO" "$T/fifoout.out"

# --- time -----------------------------------------------------------------
# shellcheck disable=SC2086
hrun big --rounds=1 -- $HP --big-record 100000
expect_exit "hostile: a record of 100,000 env lines: refused" 1
check "hostile: a record of 100,000 env lines: read in under 10 s (was about 30 s)" test "$secs" -lt 10
expect_grep "hostile: a record of 100,000 env lines: the reason" "more than 10 env lines" "$T/big.out"
if [ -n "$BENCH" ]; then
    check "hostile: records at the 32 MiB cap, each read in under 1 s (build/bench_record)" "$BENCH" 1
fi

# --- silent loss ------------------------------------------------------------
# shellcheck disable=SC2086
hrun many --rounds=1 --json="$T/many.json" -- $HP --records 66
expect_exit "hostile: 66 CUDA processes: the run fails, never passes short" 1
expect_grep "hostile: 66 CUDA processes: the count said" "66 records, 64 read" "$T/many.out"
check "hostile: 66 CUDA processes: the JSON says incomplete" py "$T/many.json" "assert d['incomplete'] is True"
# shellcheck disable=SC2086
hrun fail --rounds=2 --json="$T/fail.json" -- $HP --exit 1
check "hostile: every run failed: the JSON says incomplete" py "$T/fail.json" "assert d['incomplete'] is True"
rm -rf "${STANDIN_STATE:?}"/*
# shellcheck disable=SC2086
hrun trunc --rounds=1 --json="$T/trunc.json" -- python3 tests/standin_program.py --version "$V" --truncate
check "hostile: a record refused: the JSON says incomplete" py "$T/trunc.json" "assert d['incomplete'] is True"
# A record directory of mode 0: only an unprivileged user is stopped by it.
NOBODY=
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
    NOBODY="setpriv --reuid=$(id -u nobody) --regid=$(id -g nobody) --clear-groups"
    chmod 0777 "$T/tmp" "$STANDIN_STATE"
    chmod 0755 "$T"
elif [ "$(id -u)" = 0 ]; then
    NOBODY=skip
fi
if [ "$NOBODY" != skip ]; then
    t0=$(date +%s)
    # shellcheck disable=SC2086
    $TO $NOBODY "$HARNESS" --rounds=1 --json="$T/tmp/mode0.json" -- $HP --mode-0 \
        >"$T/mode0.out" 2>"$T/mode0.err"
    rc=$?
    mv "$T/tmp/mode0.json" "$T/mode0.json" 2>/dev/null
    rm -rf "$T/tmp/mode0.json.program"
    expect_exit "hostile: the record directory made mode 0: the run is whole" "$OK"
    check "hostile: the record directory made mode 0: its record read" \
        py "$T/mode0.json" "assert m('default.processes')[0]['samples'] == [1]"
    check "hostile: the record directory made mode 0: removed at the end" tmp_empty
else
    echo "PASSED hostile: the record directory made mode 0: not tried (root without setpriv)"
fi

# --- survivors --------------------------------------------------------------
rm -f "$STANDIN_STATE/survivor"
# shellcheck disable=SC2086
hrun setsid --rounds=1 --json="$T/setsid.json" -- $HP --setsid-child
expect_exit "hostile: a setsid child left running: a failed check" 1
check "hostile: the setsid child is gone when the harness ends" gone "$(cat "$STANDIN_STATE/survivor" 2>/dev/null)"
expect_grep "hostile: the setsid child killed: named on stderr" "killed (SIGKILL): pid [0-9]* (python3)" "$T/setsid.err"
expect_grep "hostile: the run it outlived named as the run is (a warm-up as a warm-up, not 'run 0')" \
    "^harness: program: warm-up run 1 (as set): 1 process of the program still running" "$T/setsid.err"
check "hostile: the setsid child killed: named in the results" \
    py "$T/setsid.json" "assert [c for c in d['checks'] if not c['passed'] and 'outlived' in c['what'] and 'pid' in c['detail']]"
for sig in HUP QUIT KILL; do
    rm -f "$STANDIN_STATE/main" "$STANDIN_STATE/hung" "$T/sig$sig.json"
    # shellcheck disable=SC2086
    "$HARNESS" --rounds=1 --json="$T/sig$sig.json" -- $HP --hang-main \
        >"$T/sig$sig.out" 2>"$T/sig$sig.err" &
    hp=$!
    wait_path "$STANDIN_STATE/main" && wait_path "$STANDIN_STATE/hung"
    sleep 0.2
    kill -s "$sig" "$hp"
    wait "$hp"
    rc=$?
    case $sig in
        HUP) expect_exit "hostile: SIGHUP to the harness: stopped as SIGTERM would" 129 ;;
        QUIT) expect_exit "hostile: SIGQUIT to the harness: stopped as SIGTERM would" 131 ;;
        KILL) expect_exit "hostile: SIGKILL to the harness" 137 ;;
    esac
    check "hostile: SIG$sig to the harness: the program's first process is gone" \
        gone "$(cat "$STANDIN_STATE/main")"
    check "hostile: SIG$sig to the harness: its worker is gone" gone "$(cat "$STANDIN_STATE/hung")"
    # SIGKILL: the sentinel (ptree.h) ends the rest a moment later.
    [ "$sig" = KILL ] && sleep 0.5
    check "hostile: SIG$sig to the harness: no directory left" tmp_empty
    if [ "$sig" != KILL ]; then
        check "hostile: SIG$sig to the harness: the results so far, marked incomplete" \
            py "$T/sig$sig.json" "assert d['incomplete'] is True and 'SIG$sig' in d['environment']['stopped']"
    fi
    kill -9 "$(cat "$STANDIN_STATE/hung")" 2>/dev/null
    rm -rf "$T/tmp/"*
done

# --- trust --------------------------------------------------------------------
# shellcheck disable=SC2086
hrun pid1 --rounds=1 -- $HP --forge-pid1
expect_exit "hostile: a whole record of pid 1: refused" 1
expect_grep "hostile: a record of pid 1: the reason" "pid 1 is not a process of this run" "$T/pid1.out"
# shellcheck disable=SC2086
hrun link --rounds=1 -- $HP --symlink-dir
expect_exit "hostile: the record directory replaced by a link: refused" 1
expect_grep "hostile: the record directory replaced by a link: said" "no longer a directory (a symbolic link" "$T/link.out"
mkdir -p "$T/rel/tmp" "$T/elsewhere"
# shellcheck disable=SC2086
(cd "$T/rel" && env_set TMPDIR tmp && $TO "$ABS" --rounds=1 --json="$T/rel.json" -- $HP --chdir "$T/elsewhere" \
    >"$T/rel.out" 2>"$T/rel.err")
rc=$?
expect_exit "hostile: a relative TMPDIR, a program that changes directory: it ran" "$OK"
check "hostile: a relative TMPDIR: the record found (1 CUDA process a run)" \
    py "$T/rel.json" "assert m('default.processes')[0]['samples'] == [1]"

# --- outputs ------------------------------------------------------------------
# shellcheck disable=SC2086
(cd "$T" && $TO "$ABS" --rounds=1 --json=- -- $HP >"$T/dash.out" 2>"$T/dash.err")
check "hostile: --json=-: the JSON alone on stdout" py "$T/dash.out" "assert d['environment']['program_command']"
check "hostile: --json=-: no file named '-', no '-.program'" sh -c "[ ! -e '$T/-' ] && [ ! -e '$T/-.program' ]"
expect_grep "hostile: --json=-: the tables on stderr" "exit code" "$T/dash.err"
mkfifo "$T/fifo.json"
cat "$T/fifo.json" >"$T/fifo.read" &
reader=$!
# shellcheck disable=SC2086
hrun fifojson --rounds=1 --json="$T/fifo.json" -- $HP
wait "$reader"
check "hostile: --json=FIFO: no .program directory beside it" test ! -e "$T/fifo.json.program"
check "hostile: --json=FIFO: the JSON read from it" py "$T/fifo.read" "assert d['measurements']"
# shellcheck disable=SC2086
hrun full --rounds=1 --json=/dev/full -- $HP
expect_exit "hostile: --json=/dev/full: exit 1" 1
check "hostile: --json=/dev/full: no /dev/full.program" test ! -e /dev/full.program
check "hostile: --json=/dev/full: the closing line is last and says exit code 1" \
    sh -c "tail -n 1 '$T/full.out' | grep -q 'exit code 1[ .;]'"
# shellcheck disable=SC2086
"$HARNESS" --rounds=1 --json="$T/two.json" -- $HP --sleep 3 >"$T/two1.out" 2>"$T/two1.err" &
first=$!
wait_path "$T/two.json.program/run01-*"
# shellcheck disable=SC2086
hrun two2 --rounds=1 --json="$T/two.json" -- $HP
expect_exit "hostile: a second run on one --json: refused at start" 2
expect_grep "hostile: a second run on one --json: the directory named" "two.json.program is in use by another harness run" "$T/two2.err"
wait "$first"
rc=$?
expect_exit "hostile: the first run on that --json: whole" "$OK"
check "hostile: the first run's output alone in its directory (2 warm-up runs and 2 runs, 8 files)" \
    sh -c "[ \$(ls '$T/two.json.program' | wc -l) -eq 8 ] && grep -q 'hostile ran' '$T/two.json.program/run01-default.out'"
mkdir -p "$T/up/down"
SLURMD_NODENAME=.. hrun dots --rounds=1 --json="$T/up/down/%n/r.json" -- $HP
expect_exit "hostile: %n = '..': refused" 2
expect_grep "hostile: %n = '..': said" "%n expands to '..', which holds '..'" "$T/dots.err"
check "hostile: %n = '..': nothing written one directory up" test ! -e "$T/up/down/../r.json"
SLURMD_NODENAME="$(printf 'a\tb')" hrun ctl --rounds=1 --json="$T/%n.json" -- $HP
expect_exit "hostile: %n holding a tab: refused" 2
expect_grep "hostile: %n holding a tab: said" "which holds a control character" "$T/ctl.err"

# --- late refusal -----------------------------------------------------------
printf '\177ELF\002\001\001\000garbage' >"$T/badelf"
printf '#!/nonexistent/interpreter\necho hi\n' >"$T/badsh"
chmod +x "$T/badelf" "$T/badsh"
hrun badelf --rounds=1 --json="$T/badelf.json" -- "$T/badelf"
expect_exit "hostile: a bad ELF with its exec bit: exit 2 before any run" 2
expect_grep "hostile: a bad ELF: the reason" "cannot be run: a truncated ELF header" "$T/badelf.err"
check "hostile: a bad ELF: nothing run, nothing written" sh -c "[ ! -s '$T/badelf.out' ] && [ ! -e '$T/badelf.json.program' ]"
hrun badsh --rounds=1 -- "$T/badsh"
expect_exit "hostile: a missing #! interpreter: exit 2 before any run" 2
expect_grep "hostile: a missing #! interpreter: named" "#! interpreter /nonexistent/interpreter: No such file" "$T/badsh.err"
env_restore TMPDIR
