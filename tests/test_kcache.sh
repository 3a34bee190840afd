#!/bin/sh
# test_kcache.sh: the run's compile cache on the stand-in driver
# (tests/fakecuda), counted with HARNESS_FAULT_LOG (each process's NVRTC
# calls): section loading compiles each distinct source once in the whole
# run where the parent can compile for its children (it knows the arch),
# else every child its own (never one child for the others), and a child that reads every image checks and measures
# what one that compiles does; the children that load a module they need
# but do not time its compile (jit's driver JIT children, launch's
# scheduling-mode children) make no NVRTC call, while those whose compile is
# the measurement (jit-first, the order children, the whole-process child)
# and the first-launch children (all alike: the first runs before the
# parent could fill the cache) still compile; the cache directory
# lies under TMPDIR during the run and is gone after it, a signal's stop
# included; a HARNESS_RTC_CACHE from outside is not used.
: "${HARNESS:=./harness}"
: "${FAKECUDA:=build/libfakecuda.so}"
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
export HARNESS_LIBCUDA="$FAKECUDA"
unset HARNESS_RTC_CACHE

# compiles LOG: every process's nvrtcCompileProgram count, one a line, in the
# order the processes ended (a child before its parent).
compiles() {
    awk '/^# process/ { if (seen) print n; seen = 1; n = 0; next }
         $1 == "nvrtcCompileProgram" { n = $2 }
         END { if (seen) print n }' "$1"
}
# nvrtc_calls LOG: each process's count of NVRTC calls of any kind.
nvrtc_calls() {
    awk '/^# process/ { if (seen) print n; seen = 1; n = 0; next }
         $1 ~ /^nvrtc/ { n += $2 }
         END { if (seen) print n }' "$1"
}
sum() { awk '{ s += $1 } END { print s + 0 }'; }

mkdir "$T/tmp" "$T/outside"
chmod 700 "$T/outside"
env_set TMPDIR "$T/tmp"

# A default run of section loading alone (on the stand-in driver its first
# child's checks fail, so the rounds stop after it): the parent opened no
# device, so it cannot fill the cache; no child reads it, the child
# compiles its own 11 (the clock kernel, the harness's module and synth1,
# synth10, synth100, each to cubin and PTX; the library path's two again).
export HARNESS_FAULT_LOG="$T/ld.log"
HARNESS_RTC_CACHE="$T/outside" run_harness "$T/ld.out" "$T/ld.err" --section=loading --json="$T/ld.json"
unset HARNESS_FAULT_LOG
expect_exit "section loading, a default run: exit 1, as before (no kernel runs on the stand-in)" 1
check "section loading alone: the parent compiles nothing, the child its own 11 (no cache)" \
    test "$(compiles "$T/ld.log" | tr '\n' ' ')" = "11 0 "
check "section loading: the cache directory is gone after the run, TMPDIR empty" test -z "$(ls -A "$T/tmp")"
check "section loading: a HARNESS_RTC_CACHE from outside is replaced, not written" \
    test -z "$(ls -A "$T/outside")"
check "section loading: the JSON reads back" python3 tests/check_json.py "$T/ld.json"

# Both modes in alternating children, two rounds: four children alike.
# Without --arch each compiles its own (11 each: 44); with it the parent
# compiles the 9 distinct ones first and every child only reads.
export HARNESS_FAULT_LOG="$T/cmp.log"
run_harness "$T/cmp.out" "$T/cmp.err" --section=loading --compare-loading --rounds=2 --json="$T/cmp.json"
unset HARNESS_FAULT_LOG
check "--compare-loading --rounds=2, no --arch: each of the four children compiles its own 11" \
    test "$(compiles "$T/cmp.log" | tr '\n' ' ')" = "11 11 11 11 0 "
export HARNESS_FAULT_LOG="$T/cmpa.log"
run_harness "$T/cmpa.out" "$T/cmpa.err" --section=loading --compare-loading --rounds=2 --arch=sm_90 \
    --json="$T/cmpa.json"
unset HARNESS_FAULT_LOG
check "--compare-loading --rounds=2 --arch: the parent compiles the 9 distinct ones, the four children none" \
    test "$(compiles "$T/cmpa.log" | tr '\n' ' ')" = "0 0 0 0 9 "
check "--compare-loading: TMPDIR empty after the run" test -z "$(ls -A "$T/tmp")"

# One loading child as the parent starts it, compiling (no cache), then
# twice with a cache: the first fills it, the second reads every image and
# compiles nothing; its checks and measurements are the compiling child's.
LD="--child=results --section=loading --reps=1 --warmup=0 --synthetic-kernels=1,10"
# shellcheck disable=SC2086
run_harness "$T/c0.out" "$T/c0.err" $LD
mkdir "$T/cache"
chmod 700 "$T/cache"
# shellcheck disable=SC2086
HARNESS_RTC_CACHE="$T/cache" run_harness "$T/c1.out" "$T/c1.err" $LD
export HARNESS_FAULT_LOG="$T/c2.log"
# shellcheck disable=SC2086
HARNESS_RTC_CACHE="$T/cache" run_harness "$T/c2.out" "$T/c2.err" $LD
unset HARNESS_FAULT_LOG
check "a loading child with a full cache: no compile" test "$(compiles "$T/c2.log" | sum)" -eq 0
check "the cache holds one file per distinct compile (7), none half-written" \
    sh -c "test \$(ls '$T/cache' | grep -c '\\.img\$') -eq 7 && ! ls '$T/cache' | grep -q '\\.tmp\\.'"
grep '^check' "$T/c0.out" >"$T/c0.checks"
grep '^check' "$T/c2.out" >"$T/c2.checks"
check "a loading child reading every image has the compiling child's checks, word for word" \
    sh -c "test -s '$T/c0.checks' && cmp -s '$T/c0.checks' '$T/c2.checks'"
cut -f1-3 "$T/c0.out" | grep '^m' | sort >"$T/c0.keys"
cut -f1-3 "$T/c2.out" | grep '^m' | sort >"$T/c2.keys"
check "... and the same measurements" sh -c "test -s '$T/c0.keys' && cmp -s '$T/c0.keys' '$T/c2.keys'"
check "... and the same stderr" cmp -s "$T/c0.err" "$T/c2.err"

# Section jit: the parent's untimed round stores what the driver JIT
# children load; those make no NVRTC call (NVRTC not even loaded), while
# jit-first (two compiles) and the four order children (one each) compile.
export HARNESS_FAULT_LOG="$T/jit.log"
run_harness "$T/jit.out" "$T/jit.err" --section=jit --reps=1 --rounds=1 --synthetic-kernels=1
unset HARNESS_FAULT_LOG
check "section jit: jit-first compiles twice, then four jit-load children make no NVRTC call, the \
four order children compile once each, jit-opt makes none" \
    test "$(nvrtc_calls "$T/jit.log" | sed '$d' | tr '\n' ' ')" = "14 0 0 0 0 7 7 7 7 0 "
check "section jit: the compiles the children measure are made (2, then 1 in each order child)" \
    test "$(compiles "$T/jit.log" | sed '$d' | tr '\n' ' ')" = "2 0 0 0 0 1 1 1 1 0 "

# Section stopwatches: the whole-process child compiles (its compile is one
# of its parts), and each first-launch child compiles, the second as the
# first (one mode's samples all from children alike).
export HARNESS_FAULT_LOG="$T/sw.log"
run_harness "$T/sw.out" "$T/sw.err" --section=stopwatches --reps=1 --rounds=1
unset HARNESS_FAULT_LOG
check "section stopwatches: the whole-process child compiles, and both first-launch children \
compile, alike" \
    test "$(nvrtc_calls "$T/sw.log" | sed '$d' | tr '\n' ' ')" = "7 8 8 "

# Section launch: the scheduling-mode children read empty.cu, which the
# parent compiled; the parent compiles launch.cu once (twice before).
export HARNESS_FAULT_LOG="$T/ln.log"
run_harness "$T/ln.out" "$T/ln.err" --section=launch --reps=1 --rounds=1
unset HARNESS_FAULT_LOG
check "section launch: three scheduling-mode children, no NVRTC call; the parent compiles 2 (3 before)" \
    test "$(nvrtc_calls "$T/ln.log" | sed '$d' | tr '\n' ' ') $(compiles "$T/ln.log" | tail -1)" = "0 0 0  2"
check "TMPDIR empty after sections jit, stopwatches and launch" test -z "$(ls -A "$T/tmp")"

# A SIGINT while a loading child hangs: the cache directory is removed with
# the stop.
export HARNESS_TEST_CHILD_HANG=1
signal_run INT "$T/tmp/harness-rtc-cache-*" "$T/si" --section=loading --rounds=1 --child-timeout=20
unset HARNESS_TEST_CHILD_HANG
expect_exit "SIGINT while a loading child runs: exit 130" 130
check "SIGINT: the compile cache directory is removed" test -z "$(ls -A "$T/tmp")"
env_restore TMPDIR
