#!/bin/sh
# gpu.sh: the GPU tests (make test-gpu): both sections on a real GPU, their
# checks and invariants, the bad inputs that need a device. Ends with the
# line "N passed, N failed"; exits 1 on any failure.
: "${HARNESS:=./harness}"
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
{
unset COLUMNS
run_harness "$T/a.out" "$T/a.err" --json="$T/a.json" --csv="$T/a.csv"
expect_exit "default run: both sections, all checks pass" 0
check "default run: the last 15 lines are the summary, one line per answer" \
    python3 tests/gpu_checks.py summary "$T/a.out" "$T/a.json"
check "default run: no line wider than 100 columns (COLUMNS unset, stdout a file)" \
    python3 tests/gpu_checks.py width "$T/a.out" 100
check "default run: the JSON names the GPU, the driver, the host's GPUs (provenance)" \
    python3 tests/gpu_checks.py provenance "$T/a.json"
expect_grep "default run prints the stopwatch table" "events, kernel, after warm-up" "$T/a.out"
expect_grep "default run prints row 1 / row 4" "Row 1 / row 4 = " "$T/a.out"
expect_grep "default run prints the crossover table" "one-shot winner" "$T/a.out"
check "default run JSON: shape and every check passed" \
    python3 tests/check_json.py "$T/a.json" --expect-checks-pass
check "default run CSV has a row per measurement" \
    python3 tests/gpu_checks.py csv "$T/a.json" "$T/a.csv"
check "waterfall: unaccounted remainder <= 5% of row 1" \
    python3 tests/gpu_checks.py remainder "$T/a.json"
check "invariant: row 1 >= row 5 >= row 4" python3 tests/gpu_checks.py contain "$T/a.json"
check "crossover: every size has CPU, kernel and both round trips" \
    python3 tests/gpu_checks.py crossover "$T/a.json" 1024 65536 1048576 4194304 16777827
check "crossover: its top size's rows are section stopwatches' samples, not timed again" \
    python3 tests/check_shared.py "$T/a.json" crossover 16777827

run_harness "$T/q.out" "$T/q.err" --quiet --section=launch
expect_exit "--quiet --section=launch" 0
check "--quiet prints the summary alone: a blank line, the heading, the answer, the last line" sh -c \
    "test \"\$(wc -l <'$T/q.out')\" -eq 4 && sed -n 2p '$T/q.out' | grep -q '^Answers' &&
     sed -n 3p '$T/q.out' | grep -q '^  empty launch: submit ' && tail -1 '$T/q.out' | grep -q '^Run time'"

run_harness "$T/b.out" "$T/b.err" --section=stopwatches --json="$T/b.json"
expect_exit "stopwatches again" 0
check "stopwatches twice: row-4 medians within 2%" \
    python3 tests/gpu_checks.py repeat "$T/a.json" "$T/b.json"

run_harness "$T/e.out" "$T/e.err" --module-loading=eager --section=stopwatches --json="$T/e.json"
expect_exit "--module-loading=eager" 0
check "eager: requested and effective mode EAGER" python3 tests/gpu_checks.py mode "$T/e.json" EAGER
check "eager: the first launch taken apart in both modes; row 3 reads EAGER's" \
    python3 tests/gpu_checks.py first "$T/e.json" EAGER
run_harness "$T/l.out" "$T/l.err" --module-loading=lazy --section=stopwatches --json="$T/l.json"
expect_exit "--module-loading=lazy" 0
check "lazy: requested and effective mode LAZY" python3 tests/gpu_checks.py mode "$T/l.json" LAZY
check "lazy: the first launch taken apart in both modes; row 3 reads LAZY's" \
    python3 tests/gpu_checks.py first "$T/l.json" LAZY

run_harness "$T/d.out" "$T/d.err" --device=7
expect_exit "--device=7 on a machine without device 7" 2
expect_grep "--device=7 names the device count" "this machine has" "$T/d.err"

run_harness "$T/s.out" "$T/s.err" --section=crossover --sizes=1024,1099511627776
expect_exit "a size that does not fit in device memory" 1
expect_grep "the error gives needed versus free in GiB" "GiB free" "$T/s.err"
expect_grep "the other sizes still ran" " 1024 " "$T/s.out"

mkdir "$T/k" && cp kernels/*.cu "$T/k/" && printf 'extern "C" __global__ void vectorAdd(float *a) { a[0] = b; }\n' >"$T/k/vector.cu"
run_harness "$T/k.out" "$T/k.err" --section=stopwatches --kernels-dir="$T/k"
expect_exit "a kernel that does not compile" 1
expect_grep "NVRTC's log names file and line" "vector.cu(1): error" "$T/k.err"

cp kernels/*.cu "$T/k/"
run_harness "$T/kd.out" "$T/kd.err" --section=crossover --sizes=4096 --kernels-dir="$T/k"
expect_exit "--kernels-dir with good sources runs" 0

# Part 2: loading, jit, module format.
for mode in eager lazy; do
    run_harness "$T/ld-$mode.out" "$T/ld-$mode.err" --section=loading --module-loading=$mode --json="$T/ld-$mode.json"
    expect_exit "loading, --module-loading=$mode" 0
    check "loading $mode: requested and effective mode" python3 tests/gpu_checks.py mode "$T/ld-$mode.json" $(echo $mode | tr a-z A-Z)
    check "loading $mode: cuFuncIsLoaded transitions as the mode implies" python3 tests/gpu_checks.py loaded "$T/ld-$mode.json" $mode
    expect_grep "loading $mode prints its table" "where each module's load costs sit" "$T/ld-$mode.out"
done
run_harness "$T/cmp.out" "$T/cmp.err" --section=loading --compare-loading --rounds=2 --synthetic-kernels=1,10 --json="$T/cmp.json"
expect_exit "--compare-loading --rounds=2 end to end" 0
check "compare: every figure has 2 rounds in each mode" python3 tests/gpu_checks.py compare "$T/cmp.json" 2
expect_grep "compare prints the side-by-side table" "eager against lazy" "$T/cmp.out"
run_harness "$T/jit.out" "$T/jit.err" --section=jit --rounds=2 --reps=3 --json="$T/jit.json"
expect_exit "section jit, 2 rounds" 0
check "jit: cache states, lazy, levels and orders measured" python3 tests/gpu_checks.py jit "$T/jit.json"
run_harness "$T/ptx.out" "$T/ptx.err" --section=stopwatches,crossover --sizes=4096 --module-format=ptx --json="$T/ptx.json"
expect_exit "--module-format=ptx" 0
expect_grep "ptx: the driver's JIT is its own waterfall step" "driver JIT of the PTX" "$T/ptx.out"
run_harness "$T/bad.out" "$T/bad.err" --section=crossover --sizes=4096 --arch=sm_100 --module-format=ptx
expect_exit "a JIT the device cannot run (--arch=sm_100, ptx)" 1
expect_grep "the failed load names the call" "cuModuleLoadDataEx" "$T/bad.err"

# Part 3: launch and fusion.
run_harness "$T/lf.out" "$T/lf.err" --section=launch,fusion --sizes=1024,4194304,16777216 --rounds=2 --json="$T/lf.json"
expect_exit "launch and fusion: every version validated" 0
check "launch and fusion JSON: shape and every check passed" python3 tests/check_json.py "$T/lf.json" --expect-checks-pass
check "fusion: every version checked against the CPU" python3 tests/gpu_checks.py fusion "$T/lf.json"
check "fusion: the sweep's rows at the main n are the main phase's samples, not timed again" \
    python3 tests/check_shared.py "$T/lf.json" fusion
expect_grep "fusion prints which prediction held" "Which prediction held" "$T/lf.out"
expect_grep "launch prints the three launch costs" "queue full behind a blocking kernel" "$T/lf.out"
run_harness "$T/fb.out" "$T/fb.err" --section=fusion --sizes=1024,99999999999
expect_exit "fusion: a size beyond device memory" 1
expect_grep "fusion: the error gives needed versus free" "GiB free" "$T/fb.err"
mkdir -p "$T/kf" && cp kernels/*.cu "$T/kf/" && sed -i 's/fmaxf(v, -3.0f), 3.0f)/fmaxf(v, -3.0f), 2.0f)/' "$T/kf/fusion.cu"
run_harness "$T/kf.out" "$T/kf.err" --section=fusion --sizes=1024 --kernels-dir="$T/kf"
expect_exit "a stage kernel that fails validation (clamp changed via --kernels-dir)" 1
expect_grep "the failure names the first bad element with both values" "elements wrong; first at index" "$T/kf.err"
HARNESS_TEST_NO_RELEASE=1 "$HARNESS" --section=launch --reps=1 --rounds=1 >"$T/nr.out" 2>"$T/nr.err"
rc=$?
expect_exit "a blocking kernel that times out: released, reported, exit 1" 1
expect_grep "the time-out is reported" "blocking kernel timed out" "$T/nr.err"
HARNESS_TEST_KERNEL_HANG=1 "$HARNESS" --section=launch --reps=1 --warmup=0 --rounds=1 --kernel-timeout=3 \
    --json="$T/kh.json" >"$T/kh.out" 2>"$T/kh.err"
rc=$?
expect_exit "a kernel that never ends: stopped at --kernel-timeout, exit 1" 1
expect_grep "the stuck wait is reported with its limit" "timed out after 3 s (--kernel-timeout=3)" "$T/kh.err"
expect_grep "the blocking kernel is released" "the blocking kernel was released; its stream drained" "$T/kh.err"
check "the JSON so far is written, marked incomplete" \
    python3 tests/check_json.py "$T/kh.json" --expect-stopped "ran past --kernel-timeout=3 s"

# Part 4: rigor.
check "default run within 60 s" python3 tests/gpu_checks.py runtime "$T/a.out" 60
check "clocks: an SM clock reading beside every event-timed sample" \
    python3 tests/gpu_checks.py clocks "$T/a.json"
run_harness "$T/c.out" "$T/c.err" --section=crossover --sizes=65536 --json="$T/c.json" --trace="$T/c.trace.json"
expect_exit "crossover at 65,536 floats, warm and L2-cold" 0
check "L2-cold is slower than warm for data that fits in the L2" \
    python3 tests/gpu_checks.py cold "$T/c.json" 65536
check "--trace on the GPU: host and device spans" python3 tests/check_trace.py "$T/c.trace.json" --expect-device
run_harness "$T/q.out" "$T/q.err" --quick --json="$T/q.json"
expect_exit "--quick" 0
check "--quick within 10 s" python3 tests/gpu_checks.py runtime "$T/q.out" 10
run_harness "$T/p.out" "$T/p.err" --profile --section=stopwatches,crossover,fusion --sizes=4096 --json="$T/p.json"
expect_exit "--profile: every kernel version once" 0
check "--profile: one sample per timed kernel" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
bad = [m['key'] for m in d['measurements'] if m['section'] == 'fusion' and m['unit'] == 'ms'
       and m['stats']['n'] != 1]
print('fusion measurements with more than one sample:', bad)
sys.exit(1 if bad else 0)" "$T/p.json"

# --module: every kind of module nvcc builds, in both modes.
HARNESS="$HARNESS" sh tests/gpu/modules.sh

run_harness "$T/w.out" "$T/w.err" --section=crossover --sizes=4096 --json=/nonexistent-dir/x.json
expect_exit "an output path that cannot be written: a usage error before any section" 2
expect_grep "it names the path and the reason" \
    "json=/nonexistent-dir/x.json: cannot be written: /nonexistent-dir: No such file or directory" "$T/w.err"
check "nothing measured, nothing printed" test ! -s "$T/w.out"
} >"$T/log" 2>&1
# GPU_KEEP=DIR keeps every run's output, JSON and CSV for a look afterwards.
[ -n "${GPU_KEEP:-}" ] && mkdir -p "$GPU_KEEP" && cp "$T"/*.out "$T"/*.err "$T"/*.json "$GPU_KEEP"/ 2>/dev/null
summary "$T/log" gpu
