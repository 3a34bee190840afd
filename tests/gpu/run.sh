#!/bin/sh
# run.sh: one call on a GPU machine: build, make test-gpu, and the reference
# runs as a user makes them, each command written beside its output; logs
# and results gathered into one archive in $OUT.
set -u
OUT=${OUT:-/tmp/harness-out}
L="$OUT/logs"
mkdir -p "$L/results" results
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
    --format=csv >"$L/nvidia-smi.txt" 2>&1
make -j8 >"$L/build.log" 2>&1 || { tail -30 "$L/build.log"; exit 1; }
make test-gpu 2>&1 | tee "$L/test-gpu.log" | grep -E '^(FAILED|gpu:)'
cc -std=c11 -D_GNU_SOURCE -O2 -o build/exit_probe tests/gpu/exit_probe.c -ldl &&
    ./build/exit_probe >results/h200-exit-probe.txt 2>&1

# reference NAME ARGS...: run the harness, keep table, JSON, CSV and command.
reference() {
    name=$1
    shift
    cmd="./build/harness $* --json=results/$name.json --csv=results/$name.csv"
    echo "$cmd" >"results/$name.cmd"
    $cmd >"results/$name.txt" 2>"$L/$name.err"
    echo "exit code $?" >>"results/$name.txt"
    tail -1 "results/$name.txt"
}
reference h200
reference h200-eager --section=loading --module-loading=eager
reference h200-lazy --section=loading --module-loading=lazy
reference h200-launch-fusion-2 --section=launch,fusion
reference h200-compare --section=loading --compare-loading --rounds=20
reference h200-compare-2 --section=loading --compare-loading --rounds=20
python3 tests/gpu_checks.py verdicts results/h200-compare.txt results/h200-compare-2.txt | tee results/h200-compare-verdicts.txt
python3 tests/gpu_checks.py floor results/h200.json | tee results/h200-floor.txt
python3 tests/gpu_checks.py repeat3 results/h200.json results/h200-launch-fusion-2.json | tee results/h200-repeat.txt
cp results/h200* "$L/results/"
tar -C "$OUT" -czf "$OUT/logs.tgz" logs && rm -rf "$L"
