#!/bin/sh
# diagnose.sh DEV: failed and hung runs explained, on a GPU, with
# tests/gpu/program/fails.cu (each mode described there):
#   flag  --compare-loading, DIAG_ROUNDS (2) rounds: LAZY fails, EAGER runs; each failed
#         LAZY run names setter waiting while spinner ran, its wait within
#         10% of the program's own clock (spin_s, the spinner's time on the
#         device's clock, printed in the run's stdout)
#   hang  --child-timeout=DIAG_KILL_S (20), 1 round: the thread and the call it was
#         inside at the kill, the kernel in flight; nothing left running on
#         the host or the GPU
#   bound --compare-env CUDA_MODULE_LOADING=EAGER,LAZY with hang, no
#         --child-timeout: EAGER's runs end, LAZY's are killed at the
#         default bound (30 s)
#   oom   --compare-loading: LAZY's first launch fails out of memory: the
#         call, the kernel, the caller and the free memory named
#   segv  --compare-loading: killed by SIGSEGV; its last CUDA call named
# Writes results/DEV-diagnose-*.{txt,json} (each table also into $OUT where
# set, as its case ends) and prints one line a check as each case ends.
DEV=${1:-h100}
R=results
mkdir -p build "$R"
nvcc -O2 -arch=sm_90 -o build/fails tests/gpu/program/fails.cu >build/fails-nvcc.log 2>&1 ||
    { echo "FAILED diagnose: nvcc fails.cu"; tail -5 build/fails-nvcc.log; exit 1; }

one() {     # one NAME ARGS...: a harness run, its table, JSON and outputs kept
    name=$1; shift
    rm -rf "build/out-$name"
    s=$(date +%s.%N)
    ./harness "$@" --json="$R/$DEV-diagnose-$name.json" --program-output="build/out-$name" \
        >"$R/$DEV-diagnose-$name.txt" 2>"build/diagnose-$name.err"
    echo "diagnose $name: exit $?, $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $s }") s"
    python3 tests/gpu/diagnose_checks.py "$R" "$DEV" "$name"
    # each case's table at once where the caller collects files ($OUT)
    [ -n "${OUT:-}" ] && cp "$R/$DEV-diagnose-$name.txt" "$OUT/" 2>/dev/null
}

one oom --compare-loading --rounds=1 --max-rounds=1 --warmup=0 -- ./build/fails oom
one segv --compare-loading --rounds=1 --max-rounds=1 --warmup=0 -- ./build/fails segv
one flag --compare-loading --rounds=${DIAG_ROUNDS:-2} --max-rounds=${DIAG_ROUNDS:-2} --warmup=0 -- ./build/fails flag
one hang --compare-loading --rounds=1 --max-rounds=1 --warmup=0 --child-timeout=${DIAG_KILL_S:-20} -- ./build/fails hang
echo "after hang: processes named fails: $(pgrep -fc 'build/fails' || true);" \
     "GPU compute processes: $(nvidia-smi --query-compute-apps=pid --format=csv,noheader | wc -l)"
one bound --compare-env CUDA_MODULE_LOADING=EAGER,LAZY --rounds=1 --max-rounds=1 --warmup=0 -- ./build/fails hang
echo "after bound: processes named fails: $(pgrep -fc 'build/fails' || true);" \
     "GPU compute processes: $(nvidia-smi --query-compute-apps=pid --format=csv,noheader | wc -l)"
