#!/bin/sh
# program.sh: -- CMD on a GPU: a PyTorch program written here
# (tests/gpu/program/app_torch.py) eager against lazy at the default count,
# its figures checked against torch's own (program_checks.py); the lesson's
# program built by nvcc (vector.cu) the same way; a program of two CUDA
# processes (one record each, memory per process); the bad inputs that need
# a GPU (killed after CUDA started, a record the program forged). Logs and
# JSON under L (default /tmp/program); the tables as results/h200-program-*.
: "${HARNESS:=./harness}"
. tests/lib.sh
L=${L:-/tmp/program}
mkdir -p "$L"
P=tests/gpu/program
{
nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits >"$L/baseline.txt" 2>&1
base=$(head -1 "$L/baseline.txt" | tr -dc 0-9)
nvcc -O2 -arch=sm_90 -o "$L/vector" "$P/vector.cu" >"$L/nvcc.log" 2>&1
check "nvcc builds the lesson's program" test -x "$L/vector"

run_harness "$L/torch.out" "$L/torch.err" --compare-loading --json="$L/torch.json" \
    --program-output="$L/torch-out" -- python3 "$P/app_torch.py"
expect_exit "torch program, --compare-loading: exit 0" 0
python3 tests/gpu/program_checks.py "$L/torch.json" "$L/torch-out" "${base:-0}" | tee "$L/torch-checks.txt" | grep -E '^(PASSED|FAILED)'
cp "$L/torch-checks.txt" results/${DEV:-h200}-program-torch-checks.txt
check "torch: LAZY in effect under LAZY, EAGER under EAGER" \
    python3 -c "import json; d = json.load(open('$L/torch.json')); t = {x['key']: x['text'] for x in d['derived']}; assert 'in effect in every' in t['answer.mode.lazy'] and 'in effect in every' in t['answer.mode.eager']"
cp "$L/torch.out" results/${DEV:-h200}-program-torch.txt
cp "$L/torch.json" results/${DEV:-h200}-program-torch.json

run_harness "$L/vec.out" "$L/vec.err" --compare-loading --json="$L/vec.json" -- "$L/vector"
expect_exit "nvcc program, --compare-loading: exit 0" 0
check "nvcc program: both kernels' first uses named" \
    python3 -c "import json; d = json.load(open('$L/vec.json')); n = [x['name'] for x in d['derived'] if x['key'].startswith('slowest.lazy.')]; assert any('vectorAdd' in s for s in n) and any('vectorScale' in s for s in n), n"
check "nvcc program: the output ends with the summary, its verdict sentences (tail -15)" sh -c \
    "tail -15 '$L/vec.out' | grep -q '^Answers (docs/program.md explains them):\$' &&
     tail -1 '$L/vec.out' | grep -q '^Run time [0-9.]* s; exit code 0'"
check "nvcc program: the JSON has the provenance fields, the GPU and driver named" sh -c \
    "python3 tests/check_json.py '$L/vec.json' && python3 -c \"import json; e = json.load(open('$L/vec.json'))['environment']; assert e['driver_version'] and e['host_gpus'], e\""
cp "$L/vec.out" results/${DEV:-h200}-program-vector.txt
cp "$L/vec.json" results/${DEV:-h200}-program-vector.json

run_harness "$L/two.out" "$L/two.err" --module-loading=lazy --rounds=3 --json="$L/two.json" -- \
    python3 "$P/app_torch.py" --worker
expect_exit "two CUDA processes: exit 0" 0
check "two CUDA processes: two records a run, memory per process" \
    python3 -c "import json; d = json.load(open('$L/two.json')); m = {x['key']: x for x in d['measurements']}; assert m['lazy.processes']['samples'] == [2, 2, 2]; assert m['proc1.lazy.mem.peak']['stats']['median'] > 100 and m['proc2.lazy.mem.peak']['stats']['median'] > 100"
cp "$L/two.out" results/${DEV:-h200}-program-two.txt
cp "$L/two.json" results/${DEV:-h200}-program-two.json

run_harness "$L/seg.out" "$L/seg.err" --rounds=1 --json="$L/seg.json" -- python3 "$P/app_torch.py" --fail-after-cuda SIGSEGV
expect_exit "killed after CUDA started: exit 1" 1
expect_grep "killed after CUDA started: the signal named" "killed by signal 11" "$L/seg.out"
check "killed after CUDA started: its first-kernel record read" \
    python3 -c "import json; d = json.load(open('$L/seg.json')); assert [c for c in d['checks'] if 'record read' in c['what'] and c['passed']]"
run_harness "$L/forge.out" "$L/forge.err" --rounds=1 -- python3 "$P/app_torch.py" --forge-record
expect_exit "a record forged by the program: exit 1" 1
expect_grep "a record forged by the program: refused, why" "record read" "$L/forge.out"
# The probe's own cost (PROGRAM_COST=1, or =vector for the nvcc program
# alone): a benchmark, not a timed test: LAZY, --rounds=10 probed and bare,
# kept as results/h200-program-cost*.
if [ "${PROGRAM_COST:-0}" = 1 ]; then
    run_harness "$L/cost.out" "$L/cost.err" --module-loading=lazy --rounds=10 --json="$L/cost.json" \
        -- python3 "$P/app_torch.py"
    expect_exit "the probe's cost, LAZY, 10 runs a side: exit 0" 0
    cp "$L/cost.out" results/${DEV:-h200}-program-cost.txt
    cp "$L/cost.json" results/${DEV:-h200}-program-cost.json
fi
if [ "${PROGRAM_COST:-0}" = 1 ] || [ "${PROGRAM_COST:-0}" = vector ]; then
    # The lesson's program: the probe, and a probe that only subscribes.
    run_harness "$L/costv.out" "$L/costv.err" --module-loading=lazy --rounds=10 -- "$L/vector"
    expect_exit "the probe's cost, nvcc program, 10 runs a side: exit 0" 0
    export HARNESS_PROBE_ONLY_SUBSCRIBE=1
    run_harness "$L/costs.out" "$L/costs.err" --module-loading=lazy --rounds=10 -- "$L/vector"
    unset HARNESS_PROBE_ONLY_SUBSCRIBE
    expect_exit "a probe that only subscribes, nvcc program: exit 0" 0
    cat "$L/costv.out" "$L/costs.out" >results/${DEV:-h200}-program-cost-vector.txt
fi
} >"$L/log" 2>&1
summary "$L/log" "program"
