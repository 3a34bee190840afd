#!/bin/sh
# settings.sh: -- CMD under the settings people change, on a GPU:
#   jit      a program whose device code is PTX for compute_80 only
#            (program/ptx_app.cu, four kernels and a cuBLAS call) under
#            --jit-cache=cold,warm: cold against warm called, and the JIT the
#            harness measures (loads, gets and first launches, cold less warm)
#            within 10% of what the program times around its own first
#            launches (program/jit_checks.py)
#   data     --compare-env CUDA_MODULE_DATA_LOADING=LAZY,EAGER on the lesson's
#            program built by nvcc
#   builds   --compare -- vector --vs vector-ptx: two builds side by side (SASS
#            for sm_90 against PTX for compute_80 alone)
#   aa       A/A: AA_RUNS invocations (default 10) of --compare-env
#            CUDA_MODULE_LOADING=LAZY,LAZY on the nvcc program, the adaptive
#            budget at its default; the share of headline verdicts called
#            over all looks
#   torch    TORCH_RUNS invocations (default 1) of --compare-loading on
#            program/app_torch.py at its defaults: the inside-the-process
#            first-kernel verdict called in each, and the rounds each took
#            (TORCH_FIRST=N numbers them from N and appends to the list)
# SETTINGS=list picks parts (default: all, in this order). Logs and JSON under
# L (default /tmp/settings); the tables as results/h200-settings-*.
: "${HARNESS:=./harness}"
# The probe as built here, named relative to the repository (the tables name it).
export HARNESS_PROBE="${HARNESS_PROBE:-./harness-probe.so}"
. tests/lib.sh
L=${L:-/tmp/settings}
mkdir -p "$L"
P=tests/gpu/program
parts=${SETTINGS:-jit data builds aa torch}
{
nvcc -O2 -arch=sm_90 -o "$L/vector" "$P/vector.cu" >"$L/nvcc.log" 2>&1
nvcc -O2 -gencode arch=compute_80,code=compute_80 -o "$L/vector-ptx" "$P/vector.cu" >>"$L/nvcc.log" 2>&1
nvcc -O2 -gencode arch=compute_80,code=compute_80 -o "$L/ptx_app" "$P/ptx_app.cu" -lcublas >>"$L/nvcc.log" 2>&1
check "nvcc builds the programs (vector for sm_90, vector and ptx_app PTX-only)" \
    test -x "$L/vector" -a -x "$L/vector-ptx" -a -x "$L/ptx_app"
for part in $parts; do
case $part in
jit)
    run_harness "$L/jit.out" "$L/jit.err" --jit-cache=cold,warm --json="$L/jit.json" \
        --program-output="$L/jit-out" -- "$L/ptx_app"
    expect_exit "--jit-cache=cold,warm on a PTX-only program: exit 0" 0
    python3 "$P/jit_checks.py" "$L/jit.json" "$L/jit-out" | tee "$L/jit-checks.txt" | grep -E '^(PASSED|FAILED)'
    cp "$L/jit.out" results/h200-settings-jit.txt
    cp "$L/jit.json" results/h200-settings-jit.json
    cp "$L/jit-checks.txt" results/h200-settings-jit-checks.txt ;;
data)
    run_harness "$L/data.out" "$L/data.err" --compare-env=CUDA_MODULE_DATA_LOADING=LAZY,EAGER \
        --json="$L/data.json" -- "$L/vector"
    expect_exit "--compare-env CUDA_MODULE_DATA_LOADING=LAZY,EAGER: exit 0" 0
    check "--compare-env: the headline verdict stored" \
        python3 -c "import json; d = json.load(open('$L/data.json')); t = {x['key']: x['text'] for x in d['derived']}; assert t['compare.in.first_kernel'], t"
    cp "$L/data.out" results/h200-settings-data.txt
    cp "$L/data.json" results/h200-settings-data.json ;;
builds)
    run_harness "$L/builds.out" "$L/builds.err" --compare --json="$L/builds.json" -- "$L/vector" \
        --vs "$L/vector-ptx"
    expect_exit "--compare -- vector --vs vector-ptx: exit 0" 0
    check "--compare: both commands named, the whole process and first kernel judged" \
        python3 -c "import json; d = json.load(open('$L/builds.json')); e = d['environment']; t = {x['key']: x['text'] for x in d['derived']}; assert e['program_side1_command'].endswith('/vector') and e['program_side2_command'].endswith('/vector-ptx') and t['compare.wall'] and t['compare.in.first_kernel'], (e, t)"
    cp "$L/builds.out" results/h200-settings-builds.txt
    cp "$L/builds.json" results/h200-settings-builds.json ;;
aa)
    i=1
    while [ "$i" -le "${AA_RUNS:-10}" ]; do
        run_harness "$L/aa$i.out" "$L/aa$i.err" --compare-env=CUDA_MODULE_LOADING=LAZY,LAZY \
            --json="$L/aa$i.json" -- "$L/vector"
        i=$((i + 1))
    done
    python3 - "$L"/aa*.json <<'PY' | tee "$L/aa.txt"
import json, sys
calls = verdicts = looks = 0
for f in sys.argv[1:]:
    e = json.load(open(f))["environment"]
    calls += e["program_look_calls"]
    verdicts += e["program_look_verdicts"]
    looks += e["program_looks"]
    print("%s: rounds %d, looks %d, headline verdicts judged %d, called %d; %s"
          % (f.rsplit("/", 1)[-1], e["program_rounds_taken"], e["program_looks"],
             e["program_look_verdicts"], e["program_look_calls"], e["program_stop"]))
rate = calls / verdicts if verdicts else 0
print("A/A: %d invocations, %d looks, %d headline verdicts judged, %d called a difference: %.2f%%"
      % (len(sys.argv) - 1, looks, verdicts, calls, 100 * rate))
print("PASSED" if rate <= 0.01 else "FAILED", "A/A: at most 1% of the headline verdicts over the looks called")
PY
    cp "$L/aa.txt" results/h200-settings-aa.txt
    cp "$L/aa1.out" results/h200-settings-aa1.txt ;;
torch)
    # Numbered from TORCH_FIRST (default 1), so that a later call adds to
    # the invocations stored before it or makes some of them again.
    i=${TORCH_FIRST:-1}
    while [ "$i" -lt "$(( ${TORCH_FIRST:-1} + ${TORCH_RUNS:-1} ))" ]; do
        run_harness "$L/torch$i.out" "$L/torch$i.err" --compare-loading --json="$L/torch$i.json" -- \
            python3 "$P/app_torch.py"
        expect_exit "torch --compare-loading, invocation $i: exit 0" 0
        check "torch invocation $i: the first-kernel verdict inside the process called" \
            python3 -c "import json; d = json.load(open('$L/torch$i.json')); t = {x['key']: x['text'] for x in d['derived']}; e = d['environment']; print('rounds', e['program_rounds_taken'], t['compare.in.first_kernel']); assert t['compare.in.first_kernel'].endswith(' higher')"
        python3 -c "import json; d = json.load(open('$L/torch$i.json')); t = {x['key']: x['text'] for x in d['derived']}; e = d['environment']; print('torch invocation $i: rounds', e['program_rounds_taken'], '|', t['compare.in.first_kernel'], '|', e['program_stop'])" | tee -a "$L/torch.txt"
        cp "$L/torch$i.out" "results/h200-settings-torch$i.txt"
        cp "$L/torch$i.json" "results/h200-settings-torch$i.json"
        i=$((i + 1))
    done
    # The list keeps the invocations stored before and not made again,
    # in their numbers' order.
    touch results/h200-settings-torch.txt
    python3 - results/h200-settings-torch.txt "$L/torch.txt" <<'PY'
import re, sys
def lines(path):
    return {int(m.group(1)): l for l in open(path) for m in [re.match(r"torch invocation (\d+):", l)] if m}
kept = lines(sys.argv[1])
kept.update(lines(sys.argv[2]))
open(sys.argv[1], "w").write("".join(kept[i] for i in sorted(kept)))
PY
    ;;
esac
done
} >"$L/log" 2>&1
summary "$L/log" "settings"
