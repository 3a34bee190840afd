#!/bin/sh
# snapshot.sh: section snapshot on a GPU, under LAZY and EAGER: every
# step, every buffer intact, the four steps against the child's own pause
# (within 10%), the device memory released while checkpointed; then a lock
# that times out on a kernel the child leaves running (HARNESS_SNAPSHOT_BUSY),
# said in one sentence, and no child left locked or checkpointed.
# SNAPSHOT_MIB (default 256,2048) the sizes, SNAPSHOT_ROUNDS (default 2)
# the children a size. Logs under L; the tables as
# results/<h100|h200>-snapshot.txt.
# Then -- CMD --snapshot on a PyTorch program (tests/gpu/program/snap_torch.py:
# SNAPSHOT_CMD_GIB, default 4, GiB of buffers of known content, a ready
# line, its own clock around the pause, a first request of kernels it never
# launched before): LAZY, LAZY snapshot, EAGER, EAGER snapshot, 2 rounds
# (16 runs with the bare ones, about 2 to 3 minutes); the checks of
# tests/gpu/snapshot_cmd_checks.py (the steps within 10% of the program's
# pause, every buffer intact, the first uses after the restore naming the
# request's kernels); results/<h100|h200>-snapshot-cmd.txt.
# SNAPSHOT_PART=section or cmd runs one part alone (default both).
: "${HARNESS:=./harness}"
. tests/lib.sh
L=${L:-/tmp/snapshot}
MIB=${SNAPSHOT_MIB:-256,2048}
ROUNDS=${SNAPSHOT_ROUNDS:-2}
mkdir -p "$L" results
case $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1) in
*H100*) DEV=h100 ;;
*) DEV=h200 ;;
esac
R="results/$DEV-snapshot.txt"
PART=${SNAPSHOT_PART:-both}
{
if [ "$PART" != cmd ]; then
: >"$R"
for mode in lazy eager; do
    run_harness "$L/$mode.out" "$L/$mode.err" --section=snapshot --module-loading=$mode \
        --snapshot-mib="$MIB" --rounds="$ROUNDS" --json="$L/$mode.json"
    expect_exit "snapshot, $mode: every child checkpointed, restored and checked" 0
    { echo "\$ ./harness --section=snapshot --module-loading=$mode --snapshot-mib=$MIB --rounds=$ROUNDS"
      cat "$L/$mode.out"; echo; } >>"$R"
    check "snapshot, $mode: every buffer intact, the steps within the child's pause" python3 - "$L/$mode.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
checks = [c for c in d["checks"] if c["section"] == "snapshot"]
assert checks and all(c["passed"] for c in checks), checks
bufs = [c for c in checks if "bit for bit" in c["what"]]
assert bufs, checks
der = {x["key"]: x for x in d["derived"] if x["section"] == "snapshot"}
ratios = {k: v["value"] for k, v in der.items() if k.startswith("pause.")}
print(ratios)
assert ratios and all(0.9 <= r <= 1.0 for r in ratios.values()), ratios
ms = {m["key"]: m for m in d["measurements"] if m["section"] == "snapshot"}
for k, m in ms.items():
    if k.endswith(".mem_checkpointed"):
        assert max(m["samples"]) < 1, (k, m["samples"])
PY
    python3 - "$L/$mode.json" >>"$R" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for x in d["derived"]:
    if x["section"] == "snapshot":
        print("derived %-20s %12.4g %s" % (x["key"], x["value"], x.get("unit", "")))
PY
done
# --kernel-timeout=10: the kernel left running ends by itself after 10 s,
# whatever the driver does with a lock or a checkpoint meanwhile.
HARNESS_SNAPSHOT_BUSY=1 run_harness "$L/busy.out" "$L/busy.err" --section=snapshot \
    --snapshot-mib=64 --rounds=1 --snapshot-lock-timeout=2000 --kernel-timeout=10 \
    --json="$L/busy.json"
expect_exit "snapshot, a kernel left running: the lock times out, a failure" 1
expect_grep "snapshot, a kernel left running: one sentence names it" \
    "the lock of the child of 64 MiB (pid [0-9]*) timed out after [0-9]* ms (--snapshot-lock-timeout=2000): its kernel blockUntil was still running" "$L/busy.err"
{ echo "\$ HARNESS_SNAPSHOT_BUSY=1 ./harness --section=snapshot --snapshot-mib=64 --rounds=1 --snapshot-lock-timeout=2000"
  grep '^harness: snapshot' "$L/busy.err"; } >>"$R"
fi
if [ "$PART" != section ]; then
    GIB=${SNAPSHOT_CMD_GIB:-4}
    OUT="$L/cmd-out"
    RC="results/$DEV-snapshot-cmd.txt"
    rm -rf "$OUT"
    mkdir -p "$OUT"
    run_harness "$L/cmd.out" "$L/cmd.err" --snapshot --ready='^snap_torch: listening' --rounds=2 \
        --max-rounds=2 --warmup=0 --program-output="$OUT" --json="$L/cmd.json" \
        -- python3 tests/gpu/program/snap_torch.py --gib "$GIB"
    expect_exit "snapshot --: every process of every run checkpointed and restored at ready" 0
    python3 tests/gpu/snapshot_cmd_checks.py "$L/cmd.json" "$OUT" >"$L/cmd.checks" 2>&1
    cat "$L/cmd.checks"
    { echo "\$ ./harness --snapshot --ready='^snap_torch: listening' --rounds=2 --max-rounds=2 --warmup=0 -- python3 tests/gpu/program/snap_torch.py --gib $GIB"
      cat "$L/cmd.out"; echo; cat "$L/cmd.err"; echo; cat "$L/cmd.checks"; } >"$RC"
fi
check "snapshot: no process of the harness is left on the GPU" \
    sh -c "! nvidia-smi --query-compute-apps=pid,process_name --format=csv,noheader | grep -q harness"
} 2>&1 | tee "$L/checks.log"
