#!/bin/sh
# run.sh: the README's test command (make test). CPU tests everywhere: the
# unit tests, the driver table's ABI, no include cycle among the headers of
# src/, every bad command line, the no-driver and stub-driver paths of the
# real binary, its JSON read back, install, scripts/compare and scripts/plot
# (its figures where matplotlib is), the --module reader on modules nvcc
# builds and on the toolkit's libraries (tests/test_modules.sh).
# The GPU tests too where a GPU is usable. Ends with "N passed, N failed".
: "${HARNESS:=./harness}"
: "${UNIT:=build/unit}"
: "${CUDA_HOME:=/usr/local/cuda}"
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
{
"$UNIT" || echo "FAILED unit tests exited non-zero"
sh tests/abi.sh
sh tests/include_cycles.sh
sh tests/test_compare.sh
sh tests/test_plot.sh
sh tests/test_modules.sh
sh tests/test_sources.sh

# Bad command lines: exit code and the error text.
grep -v '^#' tests/cli_cases.txt | grep -v '^$' | while IFS='|' read -r code text args; do
    code=$(echo "$code" | tr -d ' ')
    text=$(echo "$text" | sed 's/^ *//; s/ *$//')
    # shellcheck disable=SC2086
    "$HARNESS" $args >"$T/cli.out" 2>"$T/cli.err"
    rc=$?
    expect_exit "cli:$args" "$code"
    expect_grep "cli:$args says: $text" "$text" "$T/cli.err"
done
run_harness "$T/h.out" "$T/h.err" --help
expect_exit "--help" 0
expect_grep "--help lists every option" "--kernels-dir=DIR" "$T/h.out"
run_harness "$T/v.out" "$T/v.err" --version
expect_exit "--version" 0
expect_grep "--version prints the version" "^harness [0-9]" "$T/v.out"

# No driver: a library that is not there, then the toolkit's stub.
export HARNESS_LIBCUDA=/nonexistent/libcuda.so.1
run_harness "$T/n.out" "$T/n.err" --section=stopwatches,crossover,loading --json="$T/n.json" --csv="$T/n.csv"
expect_exit "no driver: GPU sections skipped" 3
expect_grep "no driver: one line per skipped section" "stopwatches: skipped: no CUDA driver: " "$T/n.err"
expect_grep "no driver: crossover skipped too" "crossover: skipped: no CUDA driver: " "$T/n.err"
check "no driver: the JSON is written and reads back" \
    python3 tests/check_json.py "$T/n.json" --expect-measurements 0 --expect-skipped stopwatches crossover loading
check "no driver: the CSV has its header" grep -q '^section,key,name,state' "$T/n.csv"
run_harness "$T/j.out" "$T/j.err" --section=jit --reps=2 --synthetic-kernels=1,10 --json="$T/j.json"
expect_exit "no driver: section jit runs its NVRTC part, then exit 3" 3
expect_grep "no driver: jit names the part it skipped" "jit: skipped: the driver JIT part: no CUDA driver" "$T/j.err"
check "no driver: jit's NVRTC figures are in the JSON" python3 tests/check_json.py "$T/j.json" --expect-skipped jit
expect_grep "no driver: jit prints its NVRTC table" "first compile in a fresh process" "$T/j.out"
check "no driver: jit timed each source to PTX and cubin, and K=10" sh -c "grep -q '\"compile.vector.cu.cubin\"' '$T/j.json' && grep -q '\"synth.10.ptx\"' '$T/j.json' && grep -q '\"phases.vector.cubin.' '$T/j.json'"
# --arch that NVRTC does not compile for: a usage error naming --arch, found
# when NVRTC is loaded; the JSON says the run is incomplete and why.
for a in sm_00 sm_10 sm_999; do
    rm -f "$T/a.json"
    run_harness "$T/a.out" "$T/a.err" --arch=$a --section=jit --reps=1 --rounds=1 --synthetic-kernels=1 --json="$T/a.json"
    expect_exit "--arch=$a: usage error" 2
    expect_grep "--arch=$a: one line names --arch and what NVRTC compiles for" "^harness: --arch=$a: this NVRTC compiles for sm_.*; not $a\$" "$T/a.err"
    check "--arch=$a: the JSON is marked incomplete and names the skip" sh -c \
        "python3 tests/check_json.py '$T/a.json' --expect-incomplete --expect-skipped jit && grep -q 'arch=$a' '$T/a.json'"
done
run_harness "$T/tr.out" "$T/tr.err" --section=jit --reps=1 --synthetic-kernels=1 --trace="$T/tr.json"
expect_exit "no driver: --trace of section jit" 3
check "--trace writes a Chrome trace-event document" python3 tests/check_trace.py "$T/tr.json"
run_harness "$T/trw.out" "$T/trw.err" --section=jit --reps=1 --synthetic-kernels=1 --trace=/nonexistent-dir/t.json
expect_exit "--trace to a path that cannot be written" 1
expect_grep "--trace: it names the path and the reason" "cannot write /nonexistent-dir/t.json" "$T/trw.err"
export HARNESS_TEST_CHILD_HANG=1
run_harness "$T/hang.out" "$T/hang.err" --section=jit --reps=1 --rounds=2 --synthetic-kernels=1 --child-timeout=1
unset HARNESS_TEST_CHILD_HANG
expect_exit "a child that hangs: killed at --child-timeout, the run goes on, exit 1" 1
expect_grep "the hung child is reported with its time limit" "ran past --child-timeout=1 s and was killed" "$T/hang.err"
check "both rounds ran although the first child hung" test "$(grep -c 'ran past --child-timeout' "$T/hang.err")" -eq 2
expect_grep "the rest of the section still printed" "options, vector.cu" "$T/hang.out"
# A SIGINT while section jit compiles (no driver): exit 130, the results so
# far written and marked incomplete, NVRTC's temporary directory gone.
mkdir "$T/tmp1"
tmpdir_was=${TMPDIR-}
export TMPDIR="$T/tmp1"
signal_run INT 1 "$T/si" --section=jit --reps=3 --rounds=1 --json="$T/si.json" --csv="$T/si.csv"
TMPDIR=$tmpdir_was
expect_exit "SIGINT during section jit: exit 130" 130
check "SIGINT: the run ended within 10 s of the signal" test "$secs" -le 10
expect_grep "SIGINT: the stop is reported with the files written" "stopped: interrupted by SIGINT; exit code 130; the results so far, marked incomplete, are in" "$T/si.err"
check "SIGINT: the JSON so far is valid, incomplete, says why" \
    python3 tests/check_json.py "$T/si.json" --expect-stopped "interrupted by SIGINT"
check "SIGINT: the CSV so far has its header" grep -q '^section,key,name,state' "$T/si.csv"
check "SIGINT: no temporary directory left" test -z "$(ls -A "$T/tmp1")"

# Output files: a failed write says why and leaves the earlier file whole.
printf 'earlier\n' >"$T/prev.json"
(ulimit -f 1; trap '' XFSZ; exec "$HARNESS" --section=jit --reps=1 --rounds=1 --synthetic-kernels=1 \
    --json="$T/prev.json") >/dev/null 2>"$T/fs.err"
rc=$?
expect_exit "a JSON over the file size limit: exit 1" 1
expect_grep "the failed write names the file and the reason" "cannot write $T/prev.json: File too large" "$T/fs.err"
check "the earlier file is untouched" grep -qx earlier "$T/prev.json"
check "no temporary file is left beside it" test -z "$(ls "$T" | grep 'prev.json.tmp')"
run_harness "$T/df.out" "$T/df.err" --section=stopwatches --json=/dev/full
expect_exit "--json=/dev/full: exit 1" 1
expect_grep "--json=/dev/full: says why" "cannot write /dev/full: No space left on device" "$T/df.err"
check "--json=/dev/full: the device is written in place, not replaced" test -c /dev/full
run_harness "$T/dn.out" "$T/dn.err" --section=stopwatches --json=/dev/null
expect_exit "--json=/dev/null: the run's own exit code (no GPU)" 3

# Stuck work and signals on a stand-in driver (tests/fakecuda/fake_libcuda.c): one
# device whose work never finishes (FAKE_CUDA_HANG).
if [ -n "${FAKECUDA:-}" ] && [ -e "$FAKECUDA" ]; then
    export HARNESS_LIBCUDA="$FAKECUDA"
    export FAKE_CUDA_HANG="$T/hang1"
    t0=$(date +%s)
    run_harness "$T/kt.out" "$T/kt.err" --section=crossover --sizes=1024 --reps=2 --kernel-timeout=1 \
        --json="$T/kt.json" --csv="$T/kt.csv"
    secs=$(($(date +%s) - t0))
    expect_exit "a kernel that never finishes: stopped at --kernel-timeout, exit 1" 1
    check "the stuck run ended within 10 s (limit 1 s)" test "$secs" -le 10
    expect_grep "the wait that timed out is named, with its limit" \
        "error: crossover: cuStreamSynchronize timed out after 1 s (--kernel-timeout=1)" "$T/kt.err"
    expect_grep "the stop names the files written" \
        "stopped: a kernel ran past --kernel-timeout=1 s in crossover; exit code 1; the results so far, marked incomplete, are in" "$T/kt.err"
    check "stuck kernel: the JSON so far is valid, incomplete, says why" \
        python3 tests/check_json.py "$T/kt.json" --expect-stopped "ran past --kernel-timeout=1 s"
    check "stuck kernel: the CSV so far has its header" grep -q '^section,key,name,state' "$T/kt.csv"
    check "stuck kernel: no tables printed for a stopped run" test ! -s "$T/kt.out"

    export FAKE_CUDA_HANG="$T/hang2"
    signal_run TERM "$T/hang2" "$T/st" --section=crossover --sizes=1024 --json="$T/st.json"
    expect_exit "SIGTERM while waiting on the device: exit 143" 143
    check "SIGTERM: the wait noticed it within 10 s" test "$secs" -le 10
    check "SIGTERM: the JSON so far is valid, incomplete, says why" \
        python3 tests/check_json.py "$T/st.json" --expect-stopped "interrupted by SIGTERM"
    unset FAKE_CUDA_HANG

    # SIGINT while a child runs and the jit cache directory exists: the child
    # is killed and reaped, the directory removed.
    mkdir "$T/tmp2"
    export HARNESS_TEST_CHILD_HANG=1
    export TMPDIR="$T/tmp2"
    signal_run INT "$T/tmp2/harness-jit-cache-*" "$T/sj" --section=jit --reps=1 \
        --rounds=1 --synthetic-kernels=1 --child-timeout=2 --json="$T/sj.json"
    TMPDIR=$tmpdir_was
    unset HARNESS_TEST_CHILD_HANG
    expect_exit "SIGINT while a child runs: exit 130" 130
    check "SIGINT: a child was running when the signal came" test -n "$kids"
    # shellcheck disable=SC2086
    check "SIGINT: the child was killed and reaped" none_alive $kids
    check "SIGINT: the private JIT cache directory is removed" test -z "$(ls -A "$T/tmp2")"
    check "SIGINT: the JSON so far is valid, incomplete, says why" \
        python3 tests/check_json.py "$T/sj.json" --expect-stopped "interrupted by SIGINT"

    # A failed cuMemFree in the whole-process child's teardown: the cleanup
    # frees what is left, nothing twice (it freed the buffers before the
    # failed one again, and crashed).
    for k in 1 2 3; do
        export HARNESS_FAULT="cuMemFree:$k"
        run_harness "$T/wf.out" "$T/wf.err" --child=waterfall
        unset HARNESS_FAULT
        expect_exit "waterfall child, HARNESS_FAULT=cuMemFree:$k: exit 1, no signal" 1
        expect_grep "waterfall child, HARNESS_FAULT=cuMemFree:$k: one line names the call" \
            "^harness: error: stopwatches: whole-process child: drv.cuMemFree(.*(injected by HARNESS_FAULT)" "$T/wf.err"
        check "waterfall child, HARNESS_FAULT=cuMemFree:$k: no sanitizer error (make sanitize)" \
            sh -c "! grep -q 'ERROR: AddressSanitizer' '$T/wf.err'"
    done
    HARNESS_LIBCUDA=/nonexistent/libcuda.so.1
fi

if [ -e "$CUDA_HOME/lib64/stubs/libcuda.so" ]; then
    HARNESS_LIBCUDA="$CUDA_HOME/lib64/stubs/libcuda.so"
    run_harness "$T/s.out" "$T/s.err" --section=stopwatches
    expect_exit "stub driver: treated as no driver" 3
    expect_grep "stub driver: named as the stub" "CUDA_ERROR_STUB_LIBRARY (34): this libcuda.so.1 is the toolkit's stub" "$T/s.err"
fi
HARNESS_LIBCUDA=/nonexistent/libcuda.so.1
# Fault injection: each NVRTC entry point section jit calls (listed by
# HARNESS_FAULT_LOG) fails once; every run exits 1, names the phase and the
# call on one line, writes a JSON marked incomplete, and does not crash.
FJ="--section=jit --reps=1 --rounds=1 --synthetic-kernels=1"
export HARNESS_FAULT_LOG="$T/fault.log"
# shellcheck disable=SC2086
run_harness "$T/fl.out" "$T/fl.err" $FJ
unset HARNESS_FAULT_LOG
check "HARNESS_FAULT_LOG counts each NVRTC entry point's calls" grep -q '^nvrtcCompileProgram [1-9]' "$T/fault.log"
for name in $(grep -v '^#' "$T/fault.log" | cut -d' ' -f1 | sort -u); do
    export HARNESS_FAULT="$name:1"
    rm -f "$T/f.json"
    # shellcheck disable=SC2086
    run_harness "$T/f.out" "$T/f.err" $FJ --json="$T/f.json"
    unset HARNESS_FAULT
    expect_exit "HARNESS_FAULT=$name:1: exit 1" 1
    expect_grep "HARNESS_FAULT=$name:1: one line names the phase and the call" \
        "^harness: error: jit.*$name(.*(injected by HARNESS_FAULT)" "$T/f.err"
    check "HARNESS_FAULT=$name:1: the JSON reads back, marked incomplete" \
        python3 tests/check_json.py "$T/f.json" --expect-incomplete
done
export HARNESS_FAULT=nvrtcCompileProgram:3:NVRTC_ERROR_OUT_OF_MEMORY
# shellcheck disable=SC2086
run_harness "$T/f.out" "$T/f.err" $FJ --json="$T/f.json"
unset HARNESS_FAULT
expect_exit "HARNESS_FAULT=nvrtcCompileProgram:3:NVRTC_ERROR_OUT_OF_MEMORY: exit 1" 1
expect_grep "HARNESS_FAULT with a named code: that code, on the third compile" \
    "nvrtcCompileProgram(.*NVRTC_ERROR_OUT_OF_MEMORY (1) (injected" "$T/f.err"
check "HARNESS_FAULT with a named code: the JSON reads back, marked incomplete" python3 tests/check_json.py "$T/f.json" --expect-incomplete
# A fault past the last call never fires: the run measures as usual (exit 3
# here: no driver for jit's driver part) and says the fault did not fire.
export HARNESS_FAULT=nvrtcCompileProgram:1000000
# shellcheck disable=SC2086
run_harness "$T/f.out" "$T/f.err" $FJ
unset HARNESS_FAULT
expect_exit "HARNESS_FAULT past the last call: the run's own exit code" 3
expect_grep "HARNESS_FAULT past the last call: it says the fault did not fire, and the calls made" \
    "^harness: HARNESS_FAULT=nvrtcCompileProgram:1000000 did not fire in this process: it made [1-9][0-9]* checked calls of nvrtcCompileProgram" "$T/f.err"
for spec in cuMemAlloc nvrtcNope:1 cuMemAlloc:0 cuMemAlloc:1:0 cuMemAlloc:1:CUDA_ERROR_NOPE; do
    export HARNESS_FAULT="$spec"
    run_harness "$T/f.out" "$T/f.err" --section=jit
    unset HARNESS_FAULT
    expect_exit "HARNESS_FAULT=$spec: usage error" 2
    expect_grep "HARNESS_FAULT=$spec: names the variable and what is wrong" "^harness: HARNESS_FAULT=$spec: " "$T/f.err"
done
# The driver's error paths, on a stand-in libcuda (tests/fakecuda: no kernel
# runs, so the run's checks fail and every run exits 1; what counts is the
# error line, the JSON and no crash): each entry point section crossover
# calls fails once. tests/gpu/fault_walk.sh does every section on a GPU.
if [ -n "${FAKECUDA:-}" ] && [ -e "$FAKECUDA" ]; then
    HARNESS_LIBCUDA="$FAKECUDA"
    FX="--section=crossover --sizes=1024 --reps=1 --warmup=0"
    # A device that is not there: found at run time, a usage error all the same.
    # shellcheck disable=SC2086
    run_harness "$T/d3.out" "$T/d3.err" $FX --device=3 --json="$T/d3.json"
    expect_exit "fake driver, --device=3 on a machine of one: usage error" 2
    expect_grep "fake driver, --device=3: names the device count" "^harness: --device=3: this machine has 1 CUDA device" "$T/d3.err"
    check "fake driver, --device=3: the JSON is marked incomplete and names the skip" \
        python3 tests/check_json.py "$T/d3.json" --expect-incomplete --expect-skipped crossover
    export HARNESS_FAULT_LOG="$T/fake.log"
    # shellcheck disable=SC2086
    run_harness "$T/fx.out" "$T/fx.err" $FX
    unset HARNESS_FAULT_LOG
    check "fake driver: HARNESS_FAULT_LOG lists cuMemAlloc by its base name" grep -q '^cuMemAlloc [1-9]' "$T/fake.log"
    for name in $(grep -v '^#' "$T/fake.log" | cut -d' ' -f1 | sort -u); do
        want=1
        case $name in cuInit|cuDeviceGetCount) want=3 ;; esac
        export HARNESS_FAULT="$name:1"
        rm -f "$T/f.json"
        # shellcheck disable=SC2086
        run_harness "$T/f.out" "$T/f.err" $FX --json="$T/f.json"
        unset HARNESS_FAULT
        expect_exit "fake driver, HARNESS_FAULT=$name:1: exit $want" "$want"
        expect_grep "fake driver, HARNESS_FAULT=$name:1: one line names the phase and the call" \
            "^harness: .*crossover.*$name[(:].*(injected by HARNESS_FAULT)" "$T/f.err"
        if [ "$want" -eq 1 ]; then
            check "fake driver, HARNESS_FAULT=$name:1: the JSON reads back, marked incomplete" \
                python3 tests/check_json.py "$T/f.json" --expect-incomplete
        else
            check "fake driver, HARNESS_FAULT=$name:1: the JSON lists crossover as skipped" \
                python3 tests/check_json.py "$T/f.json" --expect-skipped crossover
        fi
    done
else
    echo "FAILED the stand-in libcuda (FAKECUDA, built by make) is missing"
fi
HARNESS_LIBCUDA=/nonexistent/libcuda.so.1
run_harness "$T/w.out" "$T/w.err" --json=/nonexistent-dir/x.json
expect_exit "unwritable --json: exit 1" 1
expect_grep "unwritable --json: path and reason" "cannot write /nonexistent-dir/x.json: No such file or directory" "$T/w.err"
expect_grep "unwritable --json: the tables still print" "stopwatches: skipped" "$T/w.out"

unset HARNESS_LIBCUDA
make -s install PREFIX="$T/prefix" >/dev/null 2>&1
check "make install PREFIX=... installs a working binary" "$T/prefix/bin/harness" --version

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    HARNESS="$HARNESS" sh tests/gpu.sh | grep -E '^(PASSED|FAILED)'
else
    echo "SKIPPED GPU tests: no usable GPU here (make test-gpu runs them on one)"
fi
} >"$T/log" 2>&1
summary "$T/log"
