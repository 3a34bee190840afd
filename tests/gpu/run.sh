#!/bin/sh
# run.sh: one call on a GPU machine: build, make test-gpu, and the reference
# run as a user makes it, with logs and JSON gathered into one archive in $OUT.
# The reference run's command is written beside its output.
set -u
OUT=${OUT:-/tmp/harness-out}
mkdir -p "$OUT/logs"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
    --format=csv >"$OUT/logs/nvidia-smi.txt" 2>&1
make -j8 >"$OUT/logs/build.log" 2>&1 || { tail -30 "$OUT/logs/build.log"; exit 1; }
make test-gpu 2>&1 | tee "$OUT/logs/test-gpu.log" | grep -E '^(FAILED|gpu:)'
cc -std=c11 -D_GNU_SOURCE -O2 -o build/exit_probe tests/gpu/exit_probe.c -ldl &&
    ./build/exit_probe >"$OUT/logs/exit_probe.txt" 2>&1
cmd="./build/harness --json=results/h200.json --csv=results/h200.csv"
echo "$cmd" >"$OUT/logs/command.txt"
mkdir -p results
$cmd >"$OUT/logs/h200.txt" 2>"$OUT/logs/h200.err"
echo "exit code $?" >>"$OUT/logs/h200.txt"
cp results/h200.json results/h200.csv "$OUT/logs/"
cat "$OUT/logs/h200.txt" "$OUT/logs/h200.err" "$OUT/logs/exit_probe.txt"
tar -C "$OUT" -czf "$OUT/logs.tgz" logs && rm -rf "$OUT/logs"
