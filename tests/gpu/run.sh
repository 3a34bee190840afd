#!/bin/sh
# run.sh: one call on a GPU machine: build, make test-gpu, and the sections
# run as a user would, with logs and JSON gathered into one archive in $OUT.
set -u
OUT=${OUT:-/tmp/harness-out}
mkdir -p "$OUT/logs"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
    --format=csv >"$OUT/logs/nvidia-smi.txt" 2>&1
make -j8 >"$OUT/logs/build.log" 2>&1 || { tail -30 "$OUT/logs/build.log"; exit 1; }
make test-gpu 2>&1 | tee "$OUT/logs/test-gpu.log" | grep -E '^(FAILED|gpu:)'
./build/harness --json="$OUT/logs/run.json" --csv="$OUT/logs/run.csv" \
    >"$OUT/logs/run.txt" 2>"$OUT/logs/run.err"
echo "harness exit $?" >>"$OUT/logs/run.txt"
cat "$OUT/logs/run.txt" "$OUT/logs/run.err"
tar -C "$OUT" -czf "$OUT/logs.tgz" logs && rm -rf "$OUT/logs"
