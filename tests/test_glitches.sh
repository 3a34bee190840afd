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
