#!/bin/sh
# test_sources.sh: section jit's --source and --nvrtc-option without a GPU:
# NVRTC still runs (the figures of the built-in sources, for the file
# named), the driver part says it was skipped (exit 3); a source that does
# not compile prints NVRTC's log with file and line (exit 1); one that cannot
# be read is one line (exit 2); on the stand-in driver the PTX is loaded in
# each cache state.
: "${HARNESS:=./harness}"
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
export HARNESS_LIBCUDA=/nonexistent/libcuda.so.1
cat >"$T/k.cu" <<'CU'
#ifndef SCALE
#error SCALE is not defined
#endif
extern "C" __global__ void scale(float *a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] *= SCALE; }
CU
run_harness "$T/s.out" "$T/s.err" --section=jit --source="$T/k.cu" --nvrtc-option=-DSCALE=2.0f \
    --nvrtc-option=-lineinfo --reps=2 --rounds=1 --json="$T/s.json"
expect_exit "--source without a driver: NVRTC runs, the driver part skipped" 3
expect_grep "--source: the skip names the driver part" "jit: skipped: the driver JIT part of --source: no CUDA driver" "$T/s.err"
expect_grep "--source: the table names the file and the options" "jit --source 0: $T/k.cu (.* bytes), NVRTC options: -DSCALE=2.0f -lineinfo" "$T/s.out"
check "--source: PTX, cubin, every option set, the phases and the first compile in the JSON" sh -c "
    for k in src.0.ptx src.0.cubin src.0.opt.G src.0.opt.dopt src.0.nvrtc.first src.0.nvrtc.second; do
        grep -q \"\\\"\$k\\\"\" '$T/s.json' || exit 1; done; grep -q '\"src.0.phases.' '$T/s.json'"
run_harness "$T/e.out" "$T/e.err" --section=jit --source="$T/k.cu" --reps=1 --rounds=1
expect_exit "--source that does not compile (no -DSCALE): exit 1" 1
expect_grep "--source that does not compile: NVRTC's log names file and line" "$T/k.cu(2): .*error: #error directive: SCALE is not defined" "$T/e.err"
run_harness "$T/n.out" "$T/n.err" --section=jit --source="$T/none.cu"
expect_exit "--source that cannot be read: exit 2" 2
expect_grep "--source that cannot be read: the path and the reason" "^harness: --source=$T/none.cu: cannot open: No such file or directory" "$T/n.err"
if [ -n "${FAKECUDA:-}" ] && [ -e "$FAKECUDA" ]; then
    HARNESS_LIBCUDA=$FAKECUDA run_harness "$T/f.out" "$T/f.err" --section=jit --source="$T/k.cu" \
        --nvrtc-option=-DSCALE=2.0f --quick --reps=1 --rounds=1 --json="$T/f.json"
    expect_exit "--source on the stand-in driver: exit 0" 0
    expect_grep "--source on the stand-in driver: the driver's JIT in each cache state" "EAGER, the same cache, warm" "$T/f.out"
    check "--source on the stand-in driver: cuFuncLoad of every function in each state" sh -c "
        for s in cache.disabled cache.empty cache.warm lazy.disabled; do
            grep -q \"\\\"src.0.\$s.func_load\\\"\" '$T/f.json' || exit 1; done"
fi
