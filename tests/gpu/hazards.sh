#!/bin/sh
# hazards.sh: which loading mode is safe for a program, on a GPU: a serving
# program (program/app_serve.py: warm-up, READY, five requests of new
# kernels) under --compare-loading --ready='^READY$' --preload-list: the
# first uses after ready listed with their stalls, LAZY less EAGER within
# 10% of the program's own request times, and the same program preloading
# its kernels before READY (its own code) without those stalls
# (program/serve_checks.py); with HAZARDS_COST=1 the probe's cost on the
# requests, whole and subscribed only. Logs under L; tables as
# results/h200-hazards-*.
: "${HARNESS:=./harness}"
. tests/lib.sh
export HARNESS_PROBE="${HARNESS_PROBE:-./harness-probe.so}"
L=${L:-/tmp/hazards}
mkdir -p "$L"
P=tests/gpu/program
{
run_harness "$L/serve.out" "$L/serve.err" --compare-loading --rounds=3 --max-rounds=3 \
    --ready='^READY$' --preload-list="$L/preload.txt" --json="$L/serve.json" \
    --program-output="$L/serve-out" -- python3 "$P/app_serve.py"
expect_exit "serving program, --compare-loading --ready: exit 0" 0
run_harness "$L/pre.out" "$L/pre.err" --module-loading=lazy --rounds=3 --ready='^READY$' \
    --json="$L/pre.json" -- python3 "$P/app_serve.py" --preload
expect_exit "serving program preloading its kernels, LAZY: exit 0" 0
# The NVTX mark alone (no line matches ^ready-mark$): torch's mark reaches
# the probe as the program's NVTX tool.
run_harness "$L/mark.out" "$L/mark.err" --module-loading=lazy --rounds=2 --ready='^ready-mark$' \
    --json="$L/mark.json" -- python3 "$P/app_serve.py"
expect_exit "serving program, --ready matching its NVTX mark only: exit 0" 0
check "--ready by torch.cuda.nvtx.mark: the mark matched in 2 of 2 runs" \
    program_py "$L/mark.json" "assert dv('answer.ready')['text'].startswith('Ready: an NVTX mark matched --ready=^ready-mark\$ in 2 of 2 runs')"
check "--ready by the mark: ready past the first kernel within 50 ms of the line's (medians; two invocations)" \
    python3 -c "
import json, statistics, sys
def after(p):
    d = json.load(open(p))
    s = {x['key']: x['samples'] for x in d['measurements'] if x['section'] == 'program'}
    return statistics.median(r - f for r, f in zip(s['lazy.ready.at'], s['lazy.at.first_kernel']))
a, b = after(sys.argv[1]), after(sys.argv[2])
print('ready after the first kernel: by the mark %.1f ms, by the line %.1f ms' % (a, b))
assert abs(a - b) < 50" "$L/mark.json" "$L/serve.json"
python3 "$P/serve_checks.py" "$L/serve.json" "$L/serve-out" "$L/pre.json" | tee "$L/checks.txt"
check "--preload-list: written, kernels named" test -s "$L/preload.txt"
cp "$L/serve.out" results/h200-hazards-serve.txt
cp "$L/serve.json" results/h200-hazards-serve.json
cp "$L/checks.txt" results/h200-hazards-checks.txt
cp "$L/preload.txt" results/h200-hazards-preload.txt
cp "$L/mark.out" results/h200-hazards-mark.txt
# HAZARDS_COST=1: the probe's cost on the requests split, the same program
# under a probe that only subscribes to CUPTI (enables no callback).
if [ "${HAZARDS_COST:-0}" = 1 ]; then
    export HARNESS_PROBE_ONLY_SUBSCRIBE=1
    run_harness "$L/sub.out" "$L/sub.err" --compare-loading --rounds=3 --max-rounds=3 \
        --json="$L/sub.json" --program-output="$L/sub-out" -- python3 "$P/app_serve.py"
    unset HARNESS_PROBE_ONLY_SUBSCRIBE
    expect_exit "serving program under a probe that only subscribes: exit 0" 0
    python3 "$P/serve_checks.py" --cost "$L/serve-out" "$L/sub-out" | tee "$L/cost.txt"
    check "the probe's cost split: both modes read" grep -q "EAGER: the whole probe.*subscribed only" "$L/cost.txt"
    cp "$L/cost.txt" results/h200-hazards-cost.txt
fi
} >"$L/log" 2>&1
summary "$L/log" "hazards"
