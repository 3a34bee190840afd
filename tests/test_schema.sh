#!/bin/sh
# test_schema.sh: ./harness --schema, the measurement keys the sections
# declare (src/core/schema.h), and tests/check_json.py --schema against it: the
# JSON of a run of every section on the stand-in driver (tests/fakecuda),
# of --module with a toolkit library's images and of --source, of a program
# run with the stand-in program (tests/standin_program.py:
# both modes, bare sides, two CUDA processes a run), and the H200's default
# run (results/h200-summary.json): every measurement's and derived entry's
# key matches a declaration of its section (the most specific, and only
# one of those), in its unit. Run from the repository root with
# HARNESS and FAKECUDA (make builds both). Ends with "schema: N passed, N
# failed".
: "${HARNESS:=./harness}"
: "${FAKECUDA:=build/libfakecuda.so}"
# shellcheck source=tests/lib.sh
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
unset HARNESS_FAULT CUDA_VISIBLE_DEVICES
{
run_harness "$T/schema.json" "$T/schema.err" --schema
expect_exit "--schema" 0
check "--schema: one JSON document, a section for each entry of the list, keys and derived keys unique" python3 -c "
import json, re, sys
d = json.load(open(sys.argv[1]))
names = [s['section'] for s in d['sections']]
listed = re.findall(r'(?m)^\s*X\([A-Z_]+, \"([a-z-]+)\", (?:DEVICE|NODE_LEVEL|NODE|PROGRAM),',
                    open('src/sections/list.h').read())
assert listed and names == listed, (names, listed)
for s in d['sections']:
    for part, fields in (('keys', {'key', 'unit', 'state', 'name', 'description'}),
                         ('derived', {'key', 'unit', 'name', 'description'})):
        keys = [k['key'] for k in s[part]]
        assert len(keys) == len(set(keys)), (s['section'], part)
        for k in s[part]:
            assert set(k) == fields, k
            assert part == 'derived' or k['state'] in ('first-launch', 'L2-cold', 'warm', 'process'), k
            for w in __import__('re').findall(r'<([A-Za-z]+)>', k['key']):
                assert w in d['placeholders'], (k['key'], w)
" "$T/schema.json"
check "--schema: nothing else on stdout or stderr" test ! -s "$T/schema.err"
check "--schema: launch's descriptions carry its constants" \
    grep -q 'around 256 back-to-back cuLaunchKernel calls, divided by 256' "$T/schema.json"

# The H200's default run: every key declared.
check "results/h200-summary.json: every key declared, in its unit" \
    python3 tests/check_json.py results/h200-summary.json --schema "$T/schema.json"

# The checker itself: a key no section declares, and a unit that differs.
# spoil PART KEY OUT: the H200 run with PART's first entry keyed KEY and
# its second in us, checked into OUT.out ($rc its exit).
spoil() {
    python3 -c "
import json, sys
d = json.load(open('results/h200-summary.json'))
d[sys.argv[1]][0]['key'] = sys.argv[2]
d[sys.argv[1]][1]['unit'] = 'us'
json.dump(d, open(sys.argv[3], 'w'))" "$1" "$2" "$3.json"
    python3 tests/check_json.py "$3.json" --schema "$T/schema.json" >"$3.out" 2>&1
    rc=$?
}
spoil measurements k1.undeclared "$T/bad"
expect_exit "check_json.py --schema: a document with an undeclared key fails" 1
expect_grep "check_json.py --schema: names the undeclared key" "visible key 'k1.undeclared' is not declared" "$T/bad.out"
expect_grep "check_json.py --schema: names the unit that differs" "visible key 'k1.init' in 'us', declared 'ms'" "$T/bad.out"
spoil derived undeclared.derived "$T/badd"
expect_exit "check_json.py --schema: a document with an undeclared derived key fails" 1
expect_grep "check_json.py --schema: names the undeclared derived key" "derived\\[0\\]: visible key 'undeclared.derived' is not declared" "$T/badd.out"
expect_grep "check_json.py --schema: names the derived unit that differs" "derived\\[1\\]: visible key 'devices' in 'us', declared 'devices'" "$T/badd.out"

# Every section on the stand-in driver (its checks fail: it computes nothing).
FAKE=$(cd "$(dirname "$FAKECUDA")" && pwd)/$(basename "$FAKECUDA")
HARNESS_LIBCUDA=$FAKE run_harness "$T/f.out" "$T/f.err" --reps=2 --rounds=1 --warmup=0 --json="$T/f.json"
check "stand-in driver, every section: measurements written" \
    sh -c "grep -q '\"section\": \"fusion\"' '$T/f.json' && grep -q '\"section\": \"visible\"' '$T/f.json'"
check "stand-in driver, every section: every key declared, in its unit" \
    python3 tests/check_json.py "$T/f.json" --schema "$T/schema.json"
# PTX: the stopwatches' waterfall splits the module load at the driver's JIT.
HARNESS_LIBCUDA=$FAKE run_harness "$T/x.out" "$T/x.err" --section=stopwatches --module-format=ptx \
    --reps=2 --rounds=1 --warmup=0 --json="$T/x.json"
check "--module-format=ptx: the JIT's part of the waterfall written" grep -q '"waterfall.jit"' "$T/x.json"
check "--module-format=ptx: every key declared, in its unit" \
    python3 tests/check_json.py "$T/x.json" --schema "$T/schema.json"

# --module on the stand-in driver, both modes: a toolkit library's images.
LIB=${CUDA_HOME:-/usr/local/cuda}/lib64/libcurand.so.10
if [ -e "$LIB" ]; then
    HARNESS_LIBCUDA=$FAKE run_harness "$T/m.out" "$T/m.err" --section=loading --module="$LIB" \
        --compare-loading --rounds=2 --json="$T/m.json"
    check "--module, both modes: the children's figures written" \
        grep -q '"key": "lazy.module.0.lib.load"' "$T/m.json"
    check "--module, both modes: every key declared, in its unit" \
        python3 tests/check_json.py "$T/m.json" --schema "$T/schema.json"
else
    echo "SKIPPED --module: no $LIB"
fi

# --source on the stand-in driver: NVRTC's figures and the driver's JIT.
cat >"$T/k.cu" <<'CU'
extern "C" __global__ void scale(float *a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] *= 2.0f; }
CU
HARNESS_LIBCUDA=$FAKE run_harness "$T/s.out" "$T/s.err" --section=jit --source="$T/k.cu" --quick \
    --reps=1 --rounds=1 --json="$T/s.json"
check "--source: its figures written" grep -q '"key": "src.0.cache.warm.load"' "$T/s.json"
check "--source: every key declared, in its unit" \
    python3 tests/check_json.py "$T/s.json" --schema "$T/schema.json"

# The user's program: both modes, the bare sides, two CUDA processes a run.
standin_setup
export STANDIN_STATE="$T/state"
mkdir -p "$STANDIN_STATE"
# shellcheck disable=SC2086
HARNESS_NVML="$T/none/libnvidia-ml.so.1" run_harness "$T/p.out" "$T/p.err" --compare-loading \
    --rounds=2 --max-rounds=2 --json="$T/p.json" -- $SP --sleep LAZY=0.02,EAGER=0.05 \
    --first-kernel LAZY=300,EAGER=900 --mem LAZY=900,EAGER=1960 --workers 1
expect_exit "-- CMD with the stand-in program" "$OK"
check "-- CMD: per-process figures written" grep -q '"key": "proc2.lazy.at.first_kernel"' "$T/p.json"
check "-- CMD: every key declared, in its unit" \
    python3 tests/check_json.py "$T/p.json" --schema "$T/schema.json"
} >"$T/log" 2>&1
summary "$T/log" schema
