#!/bin/sh
# failure.sh: the GPU checks of how a run fails, for a GPU machine (about 5
# minutes on an H200): a kernel that never ends, stopped at --kernel-timeout
# with the blocking kernel released; SIGINT and SIGTERM during GPU work (exit
# 130 and 143, the JSON so far valid and marked incomplete, no temporary
# directory and no child process left); the GPU still usable afterwards; and
# make sanitize-gpu (FAILURE_SANITIZE=0: not). Run from the repository root: sh tests/gpu/failure.sh.
# Logs under $OUT/failure (default /tmp/failure). Ends with
# "failure: N passed, N failed"; exits 1 on any failure.
: "${HARNESS:=./harness}"
OUT=${OUT:-/tmp}
L="$OUT/failure"
rm -rf "$L"
mkdir -p "$L" || exit 1
. tests/lib.sh
make -s >"$L/build.log" 2>&1 || { tail -20 "$L/build.log"; exit 1; }
EXE=$(readlink -f "$HARNESS")

# harness_procs: processes running this harness binary (the run's children too).
harness_procs() {
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/exe" 2>/dev/null)" = "$EXE" ] && echo "${p#/proc/}"
    done
}

# gpu_ok NAME: the GPU still runs and validates a small crossover.
gpu_ok() {
    run_harness "$L/$1.out" "$L/$1.err" --section=crossover --sizes=4096 --reps=3
    expect_exit "$1: the GPU runs and validates after it" 0
}

{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
# 1. A kernel that never ends (HARNESS_TEST_KERNEL_HANG: the launch section's
#    blocking kernel, with no time limit of its own and never released).
export HARNESS_TEST_KERNEL_HANG=1
t0=$(date +%s)
run_harness "$L/stuck.out" "$L/stuck.err" --section=launch --reps=1 --warmup=0 --rounds=1 \
    --kernel-timeout=5 --json="$L/stuck.json" --csv="$L/stuck.csv"
secs=$(($(date +%s) - t0))
unset HARNESS_TEST_KERNEL_HANG
expect_exit "stuck kernel: stopped at --kernel-timeout=5, exit 1" 1
check "stuck kernel: the run ended within 40 s ($secs s)" test "$secs" -le 40
expect_grep "stuck kernel: the wait is named with its limit" \
    "error: launch: cuEventSynchronize timed out after 5 s (--kernel-timeout=5)" "$L/stuck.err"
expect_grep "stuck kernel: the blocking kernel was released and its stream drained" \
    "the blocking kernel was released; its stream drained" "$L/stuck.err"
check "stuck kernel: the JSON so far is valid, incomplete, says why" \
    python3 tests/check_json.py "$L/stuck.json" --expect-stopped "ran past --kernel-timeout=5 s in launch"
check "stuck kernel: the CSV so far has its header" grep -q '^section,key,name,state' "$L/stuck.csv"
check "stuck kernel: no harness process is left" test -z "$(harness_procs)"
gpu_ok after-stuck

# 2. SIGINT while the host waits on that kernel (limit 120 s): the wait
#    notices the signal, the kernel is released.
export HARNESS_TEST_KERNEL_HANG=1
signal_run INT 8 "$L/sigwait" --section=launch --reps=1 --warmup=0 --rounds=1 --kernel-timeout=120 \
    --json="$L/sigwait.json"
unset HARNESS_TEST_KERNEL_HANG
expect_exit "SIGINT while waiting on a stuck kernel: exit 130" 130
check "SIGINT in a device wait: ended within 10 s of the signal ($secs s)" test "$secs" -le 10
expect_grep "SIGINT in a device wait: the blocking kernel was released" \
    "the blocking kernel was released; its stream drained" "$L/sigwait.err"
check "SIGINT in a device wait: the JSON so far is valid, incomplete, says why" \
    python3 tests/check_json.py "$L/sigwait.json" --expect-stopped "interrupted by SIGINT"
gpu_ok after-sigwait

# 3. SIGTERM 5 s into a full run (stopwatches, crossover, loading or jit by
#    then): whatever it was doing, it stops cleanly.
mkdir "$L/tmp3"
env_set TMPDIR "$L/tmp3"
signal_run TERM 5 "$L/sigterm" --json="$L/sigterm.json" --csv="$L/sigterm.csv"
env_restore TMPDIR
expect_exit "SIGTERM 5 s into a full run: exit 143" 143
check "SIGTERM: ended within 10 s of the signal ($secs s)" test "$secs" -le 10
check "SIGTERM: the JSON so far is valid, incomplete, says why" \
    python3 tests/check_json.py "$L/sigterm.json" --expect-stopped "interrupted by SIGTERM"
check "SIGTERM: the CSV so far has its header" grep -q '^section,key,name,state' "$L/sigterm.csv"
check "SIGTERM: no temporary directory of the harness left ($(ls -A "$L/tmp3" | tr '\n' ' '))" \
    test -z "$(ls -A "$L/tmp3" | grep '^harness-')"
# shellcheck disable=SC2086
check "SIGTERM: the children running then were killed and reaped ($kids)" none_alive $kids
check "SIGTERM: no harness process is left" test -z "$(harness_procs)"

# 4. SIGINT in section jit while its private JIT cache directory exists and
#    a child runs the driver's JIT in it.
mkdir "$L/tmp4"
env_set TMPDIR "$L/tmp4"
signal_run INT "$L/tmp4/harness-jit-cache-*" "$L/sigjit" --section=jit --reps=2 --rounds=3 \
    --json="$L/sigjit.json"
env_restore TMPDIR
expect_exit "SIGINT in section jit: exit 130" 130
check "SIGINT in jit: ended within 10 s of the signal ($secs s)" test "$secs" -le 10
check "SIGINT in jit: the private JIT cache directory is removed ($(ls -A "$L/tmp4" | tr '\n' ' '))" \
    test -z "$(ls -A "$L/tmp4" | grep '^harness-')"
# shellcheck disable=SC2086
check "SIGINT in jit: the child running then was killed and reaped ($kids)" none_alive $kids
check "SIGINT in jit: the JSON so far is valid, incomplete, says why" \
    python3 tests/check_json.py "$L/sigjit.json" --expect-stopped "interrupted by SIGINT"
check "SIGINT in jit: no harness process is left" test -z "$(harness_procs)"
gpu_ok after-signals

# 5. Every section's kernels under compute-sanitizer memcheck and racecheck
#    (FAILURE_SANITIZE=0 leaves it to a call of its own: it is the slow part).
if [ "${FAILURE_SANITIZE:-1}" != 0 ]; then
    OUT="$L" make -s sanitize-gpu >"$L/sanitize-gpu.log" 2>&1
    rc=$?
    cat "$L/sanitize-gpu.log"
    expect_exit "make sanitize-gpu: no sanitizer errors" 0
fi
} >"$L/log" 2>&1
summary "$L/log" failure
