#!/bin/sh
# test_glitches.sh: small faults of the output a new user met, each fixed
# and kept fixed: "NVML NVML not available" in -- CMD's heading; the
# progress line running into an error's text; a skip reason printed twice
# without a driver; scripts/compare refusing "--threshold 5" (a space, as
# ./harness --warmup 5 takes it). Prints one PASSED or FAILED line each.
: "${HARNESS:=./harness}"
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
V=$("$HARNESS" --version | cut -d' ' -f2)

# NVML absent (HARNESS_NVML names no library where the variable is read,
# else this machine's own NVML answers or not): the heading names NVML once.
env_set HARNESS_PROBE /dev/null
env_set STANDIN_STATE "$T"
run_harness "$T/n.out" "$T/n.err" --rounds=1 -- python3 tests/standin_program.py --version "$V"
check "-- CMD: the heading's device memory names NVML once (never 'NVML NVML')" sh -c \
    "grep -q 'device memory: ' '$T/n.out' && ! grep -q 'NVML NVML' '$T/n.out' '$T/n.err'"
env_restore STANDIN_STATE
env_restore HARNESS_PROBE

# The progress line (stderr a terminal) and an error after it: the error
# starts its own line on the terminal ("jit: NVRTCharness: jit: skipped"
# before). The stand-in terminal renders "\r" and ESC [ K as a terminal does.
env_set HARNESS_LIBCUDA /nonexistent/libcuda.so.1
python3 tests/pty_run.py "$HARNESS" --section=jit --reps=1 --rounds=1 --synthetic-kernels=1 \
    >"$T/p.out" 2>&1
check "progress line on a terminal, then an error: the error starts its line" sh -c \
    "grep -q '^harness: jit: skipped: the driver JIT part' '$T/p.out' &&
     ! sed -n '1,/^--- stdout ---\$/p' '$T/p.out' | grep -q '.harness: '"
# Both streams on one terminal: each skip reason once (the report's).
python3 tests/pty_run.py --both "$HARNESS" --section=stopwatches,crossover >"$T/b.out" 2>&1
check "no driver, stdout and stderr one terminal: each skip reason printed once" sh -c \
    "test \"\$(grep -c 'stopwatches: skipped: no CUDA driver' '$T/b.out')\" -eq 1 &&
     test \"\$(grep -c 'crossover: skipped: no CUDA driver' '$T/b.out')\" -eq 1"
# Streams apart (a log of stderr): the reason is on stderr at once too.
run_harness "$T/s.out" "$T/s.err" --section=stopwatches
check "no driver, stderr apart from stdout: the skip is on stderr at once, and in the report" sh -c \
    "grep -q '^harness: stopwatches: skipped: no CUDA driver' '$T/s.err' &&
     grep -q '^stopwatches: skipped: no CUDA driver' '$T/s.out'"
env_restore HARNESS_LIBCUDA

# scripts/compare takes an option's value as the next word, as the harness does.
C=tests/compare_cases
check "scripts/compare --threshold 5 (a space) is taken as --threshold=5" sh -c \
    "scripts/compare $C/noise_a.json $C/noise_b.json --threshold 5 | grep -q '^compare/beyond  *ms .* SAME\$'"

# --module with --compare-loading: the parent opens no device; its heading
# names the children's (L2 and memory bus too, "L2 nan MiB ... nan-bit" before).
if [ -n "${FAKECUDA:-}" ] && [ -e "$FAKECUDA" ]; then
    env_set HARNESS_LIBCUDA "$(cd "$(dirname "$FAKECUDA")" && pwd)/$(basename "$FAKECUDA")"
    run_harness "$T/m.out" "$T/m.err" --section=loading --module=tests/fuzz/modules/sm90.cubin \
        --compare-loading --rounds=1
    env_restore HARNESS_LIBCUDA
    check "--module --compare-loading: the heading has the device's L2 and memory bus, no nan" sh -c \
        "tr '\\n' ' ' <'$T/m.out' | tr -s ' ' | grep -q 'L2 50.0 MiB, 80.0 GiB, 5120-bit memory bus' &&
         ! grep -q 'nan MiB\|nan-bit' '$T/m.out'"
fi
