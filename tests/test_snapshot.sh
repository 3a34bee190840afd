#!/bin/sh
# test_snapshot.sh: section snapshot on the CPU, with the stand-in driver's
# checkpoint entry points (tests/fakecuda: planted step times and rates,
# states kept per pid in FAKE_CUDA_MEM_DIR, planted failures) and the
# stand-in NVML listing the processes that hold memory there. The child is
# the real one: the harness as --child=snapshot, through the stand-in.
# Values chosen here: lock 1 ms, checkpoint 30 ms, restore 15 ms, unlock
# 2 ms, plus the bytes at 0.5 GB/s (checkpoint) and 1 GB/s (restore).
: "${HARNESS:=./harness}"
: "${FAKECUDA:=build/libfakecuda.so}"
: "${FAKENVML:=build/libfakenvml.so}"
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
if [ ! -e "$FAKECUDA" ] || [ ! -e "$FAKENVML" ]; then
    echo "FAILED snapshot: the stand-in libcuda or NVML ($FAKECUDA, $FAKENVML, built by make) is missing"
    exit 0
fi
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
env_set HARNESS_LIBCUDA "$(abs "$FAKECUDA")"
env_set HARNESS_NVML "$(abs "$FAKENVML")"
env_set FAKE_CUDA_FREE_MIB 1000
env_set FAKE_CUDA_MEM_DIR "$T/mem"
env_set FAKE_NVML_MEM_DIR "$T/mem"
env_set FAKE_CUDA_CKPT_US 1000,30000,15000,2000
env_set FAKE_CUDA_CKPT_GBS 0.5,1
mkdir "$T/mem"
SN="--section=snapshot --reps=2 --warmup=1 --rounds=1"

# py JSON CODE: run CODE with d the JSON, der the snapshot's derived
# entries by key, ms its measurements by key, checks its checks.
py() {
    python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
der = {x["key"]: x for x in d["derived"] if x["section"] == "snapshot"}
ms = {m["key"]: m for m in d["measurements"] if m["section"] == "snapshot"}
checks = [c for c in d["checks"] if c["section"] == "snapshot"]
def med(k): return ms[k]["stats"]["median"]
exec(sys.argv[2])
PY
}

# nothing_held: no process left locked or checkpointed (tests/lib.sh).
nothing_held() { ckpt_nothing_held "$T/mem"; }

# Two sizes, two rounds: every step, the rates, the pause, the answer.
# shellcheck disable=SC2086
run_harness "$T/a.out" "$T/a.err" --section=snapshot --reps=2 --warmup=1 --snapshot-mib=1,33 --rounds=2 \
    --json="$T/a.json"
expect_exit "snapshot: two sizes, two rounds, the stand-in's checkpoints" 0
check "snapshot: each step took at least its planted time, and not 25 ms more (a loaded host)" py "$T/a.json" "
for mib in (1, 33):
    b = med('mib=%d.mem_before' % mib) * 1048576
    for step, us, gbs in (('lock', 1000, 0), ('checkpoint', 30000, 0.5), ('restore', 15000, 1),
                          ('unlock', 2000, 0)):
        want = us / 1e3 + (b / (gbs * 1e6) if gbs else 0)
        got = med('mib=%d.%s' % (mib, step))
        assert want <= got < want + 25, (mib, step, got, want)"
check "snapshot: the marginal rates and fixed parts are the planted ones (within 25%)" py "$T/a.json" "
assert abs(der['rate.checkpoint']['value'] - 0.5) < 0.125, der['rate.checkpoint']
assert abs(der['rate.restore']['value'] - 1.0) < 0.25, der['rate.restore']
assert 25 <= der['fixed.checkpoint']['value'] < 45 and 10 <= der['fixed.restore']['value'] < 30, der"
check "snapshot: NVML's figures: 32 MiB more at 33 MiB than at 1, none while checkpointed" py "$T/a.json" "
assert med('mib=33.mem_before') - med('mib=1.mem_before') == 32, ms['mib=33.mem_before']
assert med('mib=1.mem_checkpointed') == 0 and med('mib=33.mem_checkpointed') == 0
assert med('mib=33.mem_after') == med('mib=33.mem_before')"
check "snapshot: the steps lie within the child's own pause, and take most of it" py "$T/a.json" "
for mib in (1, 33):
    assert 0.5 < der['pause.%d' % mib]['value'] <= 1, der['pause.%d' % mib]
assert all(c['passed'] for c in checks) and len(checks) == 8, checks"
check "snapshot: every kernel's warm, first and second launch; the pinned copy; the cold start" py "$T/a.json" "
for k in ('vectorAdd', 'vectorScale', 'doNothing', 'copyFloat', 'blockUntil'):
    assert ms['mib=33.warm.' + k]['state'] == 'warm' and len(ms['mib=33.warm.' + k]['samples']) == 4
    assert ms['mib=33.first.' + k]['state'] == 'first-launch' and len(ms['mib=33.first.' + k]['samples']) == 2
    assert 'mib=33.second.' + k in ms
assert der['d2h_pinned']['value'] > 0 and len(ms['mib=1.cold_start']['samples']) == 2"
check "snapshot: the answer: a restore of N GiB against a cold start, the first launches over warm" py "$T/a.json" "
t = der['answer.snapshot']['text']
assert t.startswith('A restore of 0.0322 GiB took ') and ' ms against a cold start of ' in t and \
    t.endswith(' ms more than warm.'), t"
run_harness "$T/schema.json" "$T/schema.err" --schema
check "snapshot: every key and derived entry declared (--schema), in its unit" \
    python3 tests/check_json.py "$T/a.json" --schema "$T/schema.json"
expect_grep "snapshot: the table names each step" "buffers *lock *checkpoint *restore *unlock" "$T/a.out"
expect_grep "snapshot: the rates against the pinned copy" "checkpoint: 0.[0-9]* GB/s at the margin" "$T/a.out"
check "snapshot: nothing is left locked or checkpointed" nothing_held

# A driver before 570: one line, the section skipped, the run not failed (exit 3).
# shellcheck disable=SC2086
FAKE_CUDA_NO_CKPT=1 run_harness "$T/n.out" "$T/n.err" $SN --snapshot-mib=1
expect_exit "snapshot: no checkpoint API: skipped, as a section this machine cannot run" 3
expect_grep "snapshot: no checkpoint API: one line says 570 or later" \
    "^harness: snapshot: skipped: the driver has no checkpoint API: 570 or later (cuCheckpointProcessLock not found)\$" "$T/n.err"

# A lock that times out: a kernel left running, named.
# shellcheck disable=SC2086
HARNESS_SNAPSHOT_BUSY=1 FAKE_CUDA_CKPT_BUSY=1 run_harness "$T/b.out" "$T/b.err" $SN \
    --snapshot-mib=1 --snapshot-lock-timeout=200
expect_exit "snapshot: a lock that times out fails the run" 1
expect_grep "snapshot: the lock's time-out names the kernel still running" \
    "^harness: snapshot: the lock of the child of 1 MiB (pid [0-9]*) timed out after [0-9]* ms (--snapshot-lock-timeout=200): its kernel blockUntil was still running" "$T/b.err"
check "snapshot: the lock's time-out is one line; the child went on and checked its buffers" \
    sh -c "test \$(grep -c '^harness: snapshot' '$T/b.err') -eq 1"

# Refused by the driver's result.
# shellcheck disable=SC2086
FAKE_CUDA_CKPT_FAIL=checkpoint:801 run_harness "$T/r.out" "$T/r.err" $SN --snapshot-mib=1
expect_exit "snapshot: a checkpoint the driver refuses fails the run" 1
expect_grep "snapshot: the refusal is said with the driver's result and what it refuses" \
    "^harness: snapshot: the driver refused to checkpoint the child of 1 MiB (pid [0-9]*): CUDA_ERROR_NOT_SUPPORTED (801); a process that holds what the checkpoint API does not take (unified memory, IPC handles) is refused so\$" "$T/r.err"
expect_grep "snapshot: the refused child is unlocked" "left LOCKED, was unlocked after the failed step" "$T/r.err"
check "snapshot: after a refusal nothing is left locked" nothing_held

# A restore with too little memory.
# shellcheck disable=SC2086
FAKE_CUDA_CKPT_FAIL=restore:2 run_harness "$T/m.out" "$T/m.err" $SN --snapshot-mib=1
expect_exit "snapshot: a restore that runs out of memory fails the run" 1
expect_grep "snapshot: the restore's failure says what the child held and what is free" \
    "^harness: snapshot: the restore of the child of 1 MiB (pid [0-9]*) failed: CUDA_ERROR_OUT_OF_MEMORY (2): it held [0-9]* MiB before the checkpoint, and the device has [0-9]* MiB free\$" "$T/m.err"
expect_grep "snapshot: a child that cannot be restored is killed, and said so" \
    "could not be brought back from CHECKPOINTED .*: killed, so that nothing is left CHECKPOINTED" "$T/m.err"
check "snapshot: after a failed restore nothing is left checkpointed" nothing_held
# The same where NVML cannot say what the child held: its buffers, not "nan MiB".
env_set HARNESS_NVML /nonexistent/libnvidia-ml.so.1
# shellcheck disable=SC2086
FAKE_CUDA_CKPT_FAIL=restore:2 run_harness "$T/mn.out" "$T/mn.err" $SN --snapshot-mib=1
env_restore HARNESS_NVML
expect_grep "snapshot: without NVML the restore's failure names the child's buffers" \
    "^harness: snapshot: the restore of the child of 1 MiB (pid [0-9]*) failed: CUDA_ERROR_OUT_OF_MEMORY (2): it held 1 MiB of buffers (NVML could not say what else) before the checkpoint, and the device has [0-9]* MiB free\$" "$T/mn.err"

# A child that dies while locked.
# shellcheck disable=SC2086
FAKE_CUDA_CKPT_KILL=lock run_harness "$T/k.out" "$T/k.err" $SN --snapshot-mib=1
expect_exit "snapshot: a child that dies while locked fails the run" 1
expect_grep "snapshot: the child's death while locked is one sentence" \
    "^harness: snapshot: the child of 1 MiB (pid [0-9]*) was killed by signal 9 (Killed) while LOCKED; the checkpoint that followed failed: CUDA_ERROR_INVALID_VALUE (1)\$" "$T/k.err"
check "snapshot: a child that died is said once" sh -c "test \$(grep -c '^harness: snapshot' '$T/k.err') -eq 1"

# A child that fails in its cold start: its own error, then one sentence.
# shellcheck disable=SC2086
HARNESS_FAULT=cuMemAlloc:3 run_harness "$T/e.out" "$T/e.err" $SN --snapshot-mib=1
expect_exit "snapshot: a child that fails before it is ready fails the run" 1
expect_grep "snapshot: the child's own error is passed on" \
    "^harness: error: snapshot: child, cold start: drv.cuMemAlloc(.*) failed: CUDA_ERROR_OUT_OF_MEMORY" "$T/e.err"
expect_grep "snapshot: then one sentence says it never got ready" \
    "^harness: snapshot: the child of 1 MiB ended before it was ready: it exited with 1\$" "$T/e.err"

# A buffer changed across the checkpoint: the check names it.
# shellcheck disable=SC2086
FAKE_CUDA_CKPT_CORRUPT=1 run_harness "$T/c.out" "$T/c.err" $SN --snapshot-mib=130 --json="$T/c.json"
expect_exit "snapshot: a buffer changed across the checkpoint fails the run" 1
expect_grep "snapshot: the changed buffer is named, with its element" \
    "^harness: snapshot: the 130 MiB of buffers, after the checkpoint and restore, bit for bit: 1 of 3 buffers changed across the checkpoint and restore; the first, buffer 0, at element 8388608: " "$T/c.err"

# SIGINT during the checkpoint: the child restored and unlocked before the
# run stops (130), the results so far written. The states of the children
# before are gone first: the wait is for this one's lock.
rm -f "$T"/mem/ckpt.*
# shellcheck disable=SC2086
FAKE_CUDA_CKPT_US=0,1500000,0,0 "$HARNESS" $SN --snapshot-mib=1 --json="$T/s.json" >"$T/s.out" 2>"$T/s.err" &
pid=$!
i=0
while [ "$i" -lt 200 ] && ! grep -qs '^1$' "$T"/mem/ckpt.*; do sleep 0.05; i=$((i + 1)); done
kill -INT "$pid"
wait "$pid"
rc=$?
expect_exit "snapshot: SIGINT while the child is locked stops the run" 130
expect_grep "snapshot: SIGINT: the child is restored and unlocked before stopping" \
    "^harness: snapshot: the child of 1 MiB (pid [0-9]*), left CHECKPOINTED, was restored and unlocked before stopping\$" "$T/s.err"
check "snapshot: SIGINT: nothing is left locked or checkpointed" nothing_held
check "snapshot: SIGINT: the results so far are written" test -s "$T/s.json"

# Bad sizes: a usage error before anything runs.
run_harness "$T/u.out" "$T/u.err" --section=snapshot --snapshot-mib=1,0
expect_exit "snapshot: --snapshot-mib=1,0 is a usage error" 2
expect_grep "snapshot: --snapshot-mib=1,0 says what is wrong" \
    "^harness: --snapshot-mib=1,0: '0' is not a size in MiB, 1 to 1048576; expected a comma list of sizes in MiB\$" "$T/u.err"
run_harness "$T/o.out" "$T/o.err" --snapshot-mib=1
expect_exit "snapshot: --snapshot-mib without the section is a usage error (not in the default run)" 2
run_harness "$T/d.out" "$T/d.err" --child=snapshot
expect_exit "snapshot: --child=snapshot without its parent's socket is a usage error" 2
for v in FAKE_CUDA_CKPT_US FAKE_CUDA_CKPT_GBS FAKE_NVML_MEM_DIR FAKE_CUDA_MEM_DIR FAKE_CUDA_FREE_MIB \
         HARNESS_NVML HARNESS_LIBCUDA; do env_restore $v; done
