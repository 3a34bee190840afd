#!/bin/sh
# squeeze.sh: --squeeze on a GPU, with a PyTorch program that does not take
# the device's memory itself (program/app_squeeze.py: a small tensor, then
# its first linalg.qr and fft): --squeeze=auto under --compare-loading (one
# warm-up a mode, then the search), then a sweep by hand, --squeeze=M for
# each M of SQUEEZE_SWEEP (MiB; one run a mode, no warm-up), and
# program/squeeze_checks.py: PASSED or FAILED per mode for "auto's margin
# agrees with the sweep within one step", and the failure sentences at the
# failing margins. About 6 minutes with torch on the H200 (a run takes 5 to
# 10 s: the interpreter, torch, the holder's context). Logs under L; tables
# as results/h200-squeeze-*.
: "${HARNESS:=./harness}"
. tests/lib.sh
export HARNESS_PROBE="${HARNESS_PROBE:-./harness-probe.so}"
L=${L:-/tmp/squeeze}
SWEEP=${SQUEEZE_SWEEP:-128 256 512 1024 2048}
mkdir -p "$L"
P=tests/gpu/program
{
run_harness "$L/auto.out" "$L/auto.err" --compare-loading --squeeze=auto --json="$L/auto.json" \
    --program-output="$L/auto-out" -- python3 "$P/app_squeeze.py"
check "--squeeze=auto: the search ran to its end, each mode's margin found (exit 0; $rc)" test "$rc" -eq 0
jsons=
for m in $SWEEP; do
    run_harness "$L/m$m.out" "$L/m$m.err" --compare-loading --squeeze="$m" --rounds=1 --max-rounds=1 \
        --warmup=0 --json="$L/m$m.json" --program-output="$L/m$m-out" -- python3 "$P/app_squeeze.py"
    # A mode that fails at M is exit 1: the sweep's answer, not the test's failure.
    check "--squeeze=$m: ran, its JSON written (exit $rc)" test -s "$L/m$m.json" -a "$rc" -le 1
    jsons="$jsons $L/m$m.json"
done
# shellcheck disable=SC2086
python3 "$P/squeeze_checks.py" "$L/auto.json" $jsons | tee "$L/checks.txt"
cp "$L/auto.out" results/h200-squeeze-auto.txt
cp "$L/auto.json" results/h200-squeeze-auto.json
cp "$L/checks.txt" results/h200-squeeze-checks.txt
} >"$L/log" 2>&1
summary "$L/log" "squeeze"
