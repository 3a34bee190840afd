#!/bin/sh
# concurrent.sh: loads during concurrent work, on a GPU: tests/gpu/program/
# concurrent.cu (a kernel spinning about 200 ms on one stream; a kernel never
# launched before launched on another meanwhile) under --compare-loading:
# the harness names the consumer's first use as begun beside a busy stream
# under LAZY (answer.concurrent), and the program's own clock says whether
# the first launch waited for the spin (launch_ms, done_ms per mode). Logs
# under L; results/h200-concurrent.{txt,json}.
: "${HARNESS:=./harness}"
. tests/lib.sh
export HARNESS_PROBE="${HARNESS_PROBE:-./harness-probe.so}"
L=${L:-/tmp/concurrent}
mkdir -p "$L"
{
nvcc -O2 -arch=sm_90 -o "$L/concurrent" tests/gpu/program/concurrent.cu
check "concurrent.cu built" test -x "$L/concurrent"
run_harness "$L/c.out" "$L/c.err" --compare-loading --rounds=5 --max-rounds=5 --child-timeout=60 \
    --json="$L/c.json" --program-output="$L/out" -- "$L/concurrent"
expect_exit "concurrent program, --compare-loading: exit 0" 0
check "the consumer's first use under LAZY named beside a busy stream" \
    program_py "$L/c.json" "t = dv('answer.concurrent')['text']; assert t.startswith('LAZY: 1 first use') and 'consumer' in t"
python3 - "$L/out" <<'PY' | tee "$L/own.txt"
import glob, json, os, statistics, sys
for mode in ("lazy", "eager"):
    rows = []
    for f in sorted(glob.glob(os.path.join(sys.argv[1], "run*-%s.out" % mode))):
        for line in open(f):
            if line.startswith("{"):
                rows.append(json.loads(line))
    if rows:
        print("%s (probed, %d runs): consumer's first launch %.3f ms, to its end %.3f ms (medians; spin %.1f ms)"
              % (mode.upper(), len(rows), statistics.median(r["launch_ms"] for r in rows),
                 statistics.median(r["done_ms"] for r in rows), statistics.median(r["spin_ms"] for r in rows)))
PY
cp "$L/c.out" results/h200-concurrent.txt
cp "$L/c.json" results/h200-concurrent.json
cat "$L/own.txt" >>results/h200-concurrent.txt
} >"$L/log" 2>&1
summary "$L/log" "concurrent"
