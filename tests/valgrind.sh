#!/bin/sh
# valgrind.sh (make valgrind): the unit tests and harness runs without a GPU
# under valgrind memcheck: no driver, section jit's NVRTC part, every GPU
# section on the stand-in driver (tests/fakecuda/fake_libcuda.c), a stuck kernel and
# bad options. Any memcheck error or definite leak fails (exit 99 from
# valgrind). Reports from inside NVRTC are suppressed (tests/valgrind.supp).
# Ends with "valgrind: N passed, N failed".
: "${HARNESS:=./harness}"
: "${UNIT:=build/unit}"
: "${FAKECUDA:=build/libfakecuda.so}"
. tests/lib.sh
if ! command -v valgrind >/dev/null 2>&1; then
    echo "valgrind: not installed (apt-get install valgrind); nothing was checked"
    exit 1
fi
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect
    --show-leak-kinds=definite,indirect --suppressions=tests/valgrind.supp"
n=0

# vg DESC CODE CMD...: run CMD under valgrind; PASSED when valgrind found
# nothing and CMD exited with CODE. valgrind's report is printed on failure.
vg() {
    desc=$1
    want=$2
    shift 2
    n=$((n + 1))
    # shellcheck disable=SC2086
    $VG "$@" >"$T/$n.out" 2>"$T/$n.err"
    rc=$?
    if [ "$rc" -eq 99 ]; then
        echo "FAILED valgrind: $desc: memcheck errors:"
        grep '^==' "$T/$n.err" | head -40
    elif [ "$rc" -ne "$want" ]; then
        echo "FAILED valgrind: $desc (exit $rc, expected $want)"
        tail -5 "$T/$n.err"
    else
        echo "PASSED valgrind: $desc (exit $rc)"
    fi
}

{
# memcheck runs code about 50 times slower: the unit tests' timed bounds scaled
export HARNESS_TEST_SLOWDOWN=100
vg "unit tests" 0 "$UNIT"
unset HARNESS_TEST_SLOWDOWN
vg "--help" 0 "$HARNESS" --help
vg "a bad option" 2 "$HARNESS" --reps=0
export HARNESS_LIBCUDA=/nonexistent/libcuda.so.1
vg "no driver: every section skipped, JSON and CSV written" 3 "$HARNESS" \
    --json="$T/n.json" --csv="$T/n.csv" --section=visible,stopwatches,crossover,loading,launch,fusion
vg "no driver: section jit's NVRTC part" 3 "$HARNESS" --section=jit --reps=1 --rounds=1 \
    --synthetic-kernels=1 --json="$T/j.json"
vg "an unwritable --json: a usage error before any section" 2 "$HARNESS" --section=stopwatches \
    --json=/nonexistent-dir/x.json
# -- CMD: the parent's runs, records read (a stand-in program writes them)
# and tables, NVML absent, without a driver.
export HARNESS_PROBE=/dev/null
vg "no driver: -- CMD, both modes, the stand-in's records" 3 "$HARNESS" \
    --compare-loading --rounds=2 --json="$T/p.json" --trace="$T/p.trace" -- python3 \
    tests/standin_program.py --version "$("$HARNESS" --version | cut -d' ' -f2)" --workers 1 --spans 2
unset HARNESS_PROBE
vg "no driver: --module inventories (host ELF with __nv_relfatbin, fatbins, cubin, PTX)" 3 "$HARNESS" \
    --section=loading --module=tests/fuzz/modules/host-with-rel.so --module=tests/fuzz/modules/sm90.fatbin \
    --module=tests/fuzz/modules/sm90.cubin --module=tests/fuzz/modules/k.ptx --json="$T/m.json"
vg "no driver: a broken --module" 2 "$HARNESS" --section=loading --module=tests/fuzz/modules/section-past.so
vg "no driver: --source through NVRTC" 3 "$HARNESS" --section=jit --source=kernels/vector.cu \
    --nvrtc-option=-lineinfo --quick --reps=1 --rounds=1
if [ -e "$FAKECUDA" ]; then
    export HARNESS_LIBCUDA="$FAKECUDA"
    # The stand-in's kernels do nothing, so every check fails: exit 1.
    vg "stand-in driver: every GPU section's host code" 1 "$HARNESS" \
        --section=visible,stopwatches,crossover,loading,launch,fusion --sizes=1024 --reps=2 --warmup=1 \
        --rounds=1 --synthetic-kernels=1 --json="$T/f.json" --csv="$T/f.csv"
    # The parent's children run without valgrind: the first-launch child
    # directly (about a minute under memcheck: its 11 outputs are checked
    # at the lesson's n).
    export FAKE_CUDA_DEVICES=2
    vg "stand-in driver: the visible child, two devices" 0 "$HARNESS" --child=visible
    unset FAKE_CUDA_DEVICES
    vg "stand-in driver: the first-launch child" 0 "$HARNESS" --child=first-launch \
        --module-loading=eager --reps=2 --warmup=1

    vg "stand-in driver: --module, both modes (the parent)" 0 "$HARNESS" --section=loading \
        --module=tests/fuzz/modules/sm90.fatbin --module=tests/fuzz/modules/ptx-only-zstd.fatbin \
        --compare-loading --rounds=1 --json="$T/mc.json"
    vg "stand-in driver: a --module child" 0 "$HARNESS" --child=results --section=loading \
        --module=tests/fuzz/modules/host-with-rel.so
    export FAKE_CUDA_HANG="$T/hang"
    vg "stand-in driver: a stuck kernel stopped at --kernel-timeout" 1 "$HARNESS" \
        --section=crossover --sizes=1024 --kernel-timeout=1 --json="$T/k.json"
    unset FAKE_CUDA_HANG
else
    echo "FAILED valgrind: the stand-in driver $FAKECUDA is not built"
fi
} >"$T/log" 2>&1
summary "$T/log" valgrind
