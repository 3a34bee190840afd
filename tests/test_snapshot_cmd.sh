#!/bin/sh
# test_snapshot_cmd.sh: -- CMD --snapshot on the CPU, with the stand-in
# driver's checkpoint entry points (tests/fakecuda: planted step times and
# rates, states kept per pid in FAKE_CUDA_MEM_DIR, planted failures), the
# stand-in NVML listing the processes that hold memory there, and the
# stand-in program (tests/standin_program.py: --hold MiB of device memory,
# its live record planted by tests/live_plant.c, a ready line, then it waits
# for the driver to hold it and let it go, and times that pause itself).
# Values chosen here: lock 2 ms, checkpoint 40 ms, restore 20 ms, unlock
# 3 ms, plus the bytes at 0.5 GB/s (checkpoint) and 1 GB/s (restore); the
# program holds 64 MiB; its first uses after it went on: kernelX (3 + 2 ms)
# and kernelY (1 + 1 ms).
: "${HARNESS:=./harness}"
: "${FAKECUDA:=build/libfakecuda.so}"
: "${FAKENVML:=build/libfakenvml.so}"
: "${LIVE_PLANT:=build/live_plant}"
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
standin_setup
if [ ! -e "$FAKECUDA" ] || [ ! -e "$FAKENVML" ] || [ ! -x "$LIVE_PLANT" ]; then
    echo "FAILED --snapshot: the stand-in libcuda, NVML or live_plant ($FAKECUDA, $FAKENVML, $LIVE_PLANT, built by make test) is missing"
    exit 0
fi
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
env_set HARNESS_LIBCUDA "$(abs "$FAKECUDA")"
env_set HARNESS_NVML "$(abs "$FAKENVML")"
env_set LIVE_PLANT "$(abs "$LIVE_PLANT")"
env_set FAKE_CUDA_FREE_MIB 1000
env_set FAKE_CUDA_MEM_DIR "$T/mem"
env_set FAKE_NVML_MEM_DIR "$T/mem"
env_set FAKE_CUDA_CKPT_US 2000,40000,20000,3000
env_set FAKE_CUDA_CKPT_GBS 0.5,1
env_set STANDIN_STATE "$T/state"
mkdir "$T/mem" "$T/state"
USES='kernelX@5:3:2;kernelY@10:1:1'
# shellcheck disable=SC2086
PROG="$SP --ready-line listening --hold 64 --snapshot-wait 0.5 --uses-after $USES"
ONE="--snapshot --ready=listening --rounds=1 --max-rounds=1 --warmup=0"

# nothing_held: no process left locked or checkpointed (tests/lib.sh).
nothing_held() { ckpt_nothing_held "$T/mem"; }

# The four sides, two rounds: each step against its planted time, NVML's
# memory, the program's own pause, the first uses after the restore, the
# answer, the keys.
# shellcheck disable=SC2086
run_harness "$T/a.out" "$T/a.err" --snapshot --ready=listening --rounds=2 --max-rounds=2 --warmup=0 \
    --json="$T/a.json" -- $PROG --live "first 5"
expect_exit "--snapshot: four sides, two rounds, the stand-in's checkpoints" 0
check "--snapshot: the sides are LAZY, LAZY snapshot, EAGER, EAGER snapshot (then bare)" program_py "$T/a.json" "
assert [e['program_side%d_key' % i] for i in (1, 2, 3, 4)] == ['lazy', 'lazy_snapshot', 'eager', 'eager_snapshot'], e
assert [e['program_side%d_label' % i] for i in (1, 2, 3, 4)] == ['LAZY', 'LAZY snapshot', 'EAGER', 'EAGER snapshot']
assert e['program_compare'] == 'snapshot' and e['snapshot_lock_timeout_ms'] == 5000"
check "--snapshot: each step took its planted time and bytes, and not 25 ms more; the plain sides took none" program_py "$T/a.json" "
b = 64 * 1048576
for side in ('lazy_snapshot', 'eager_snapshot'):
    for step, us, gbs in (('lock', 2000, 0), ('checkpoint', 40000, 0.5), ('restore', 20000, 1), ('unlock', 3000, 0)):
        want = us / 1e3 + (b / (gbs * 1e6) if gbs else 0)
        for v in m('%s.snapshot.%s' % (side, step))[0]['samples'] + m('proc1.%s.snapshot.%s' % (side, step))[0]['samples']:
            assert want <= v < want + 25, (side, step, v, want)
assert not m('lazy.snapshot.restore') and not m('eager.snapshot.lock')"
check "--snapshot: NVML: 64 MiB before the lock, 0 while checkpointed, 64 after; one process" program_py "$T/a.json" "
for side in ('lazy_snapshot', 'eager_snapshot'):
    assert m(side + '.snapshot.mem_before')[0]['samples'] == [64, 64]
    assert m(side + '.snapshot.mem_checkpointed')[0]['samples'] == [0, 0]
    assert m(side + '.snapshot.mem_after')[0]['samples'] == [64, 64]
    assert m(side + '.snapshot.processes')[0]['samples'] == [1, 1]"
check "--snapshot: the steps agree within 10% with the program's own clock around its pause" python3 -c "
import glob, json
d = json.load(open('$T/a.json'))
med = {x['key']: x['stats']['median'] for x in d['measurements'] if x['section'] == 'program'}
pauses = sorted(float(open(p).read()) for p in glob.glob('$T/state/pause.*'))
assert len(pauses) == 8, pauses     # 2 rounds of 2 snapshot sides, probed and bare
steps = sum(med['lazy_snapshot.snapshot.' + s] for s in ('lock', 'checkpoint', 'restore', 'unlock'))
mid = pauses[len(pauses) // 2]
assert abs(steps - mid) <= 0.1 * mid, (steps, pauses)"
check "--snapshot: the first uses after the restore are the planted ones, counted from the last unlock" program_py "$T/a.json" "
for side in ('lazy_snapshot', 'eager_snapshot', 'lazy'):
    assert m(side + '.ready.uses')[0]['samples'] == [2, 2] and m(side + '.ready.stall')[0]['samples'] == [7, 7], side
names = sorted(dv('ready.lazy_snapshot.%d' % i)['name'] for i in (1, 2))
assert names == ['kernelX', 'kernelY'], names
r = m('lazy_snapshot.snapshot.resumed')[0]['stats']['median']
assert r > m('lazy_snapshot.ready.at')[0]['stats']['median'] + 150, r"
check "--snapshot: the break-even per mode: the cold start to ready less the restore and its first uses" program_py "$T/a.json" "
for mode in ('lazy', 'eager'):
    x = dv('snapshot.' + mode)
    f = x['fields']
    cold = m(mode + '.ready.at')[0]['stats']['median']
    assert f['mem_mib'] == 64 and f['after_ms'] == 7 and f['plain_after_ms'] == 7 and f['uses'] == 2
    assert 87.1 <= f['restore_ms'] < 112 and abs(f['cold_start_ms'] - cold) < 1e-6
    assert abs(x['value'] - (cold - f['restore_ms'] - 7)) < 1e-6, x
t = dv('answer.snapshot')['text']
import re
assert re.match(r'^LAZY: a restore of 64 MiB took [0-9]+ ms against a cold start to ready of [0-9]+ ms; after it the first uses cost 7.0 ms \(2 of them\), after ready without the snapshot 7.0 ms: restore and first uses, [0-9]+ ms, are [0-9]+ ms (less|more) than the cold start\. EAGER: a restore of 64 MiB', t), t"
expect_grep "--snapshot: the table's block names each step and the memory" \
    "side *process *lock *checkpoint *restore *unlock *before *checkpointed *after" "$T/a.out"
expect_grep "--snapshot: the table's row of LAZY snapshot: 64 MiB, 0 checkpointed" \
    "^    LAZY snapshot  *1 .* 64  *0  *64\$" "$T/a.out"
check "--snapshot: the section's report says each mode's restore once (it said it under the block and in the answers)" \
    sh -c "test \$(sed '/^Answers (/,\$d' '$T/a.out' | grep -c '^  LAZY: a restore of 64 MiB') -eq 1"
expect_grep "--snapshot: the mode in effect names a snapshot side by its label" \
    "^  LAZY snapshot: LAZY was in effect in every CUDA process that launched a kernel" "$T/a.out"
expect_grep "--snapshot: three comparisons that say the same, said once ('each: no difference')" \
    "^  CUDA processes  *count  .*  each: no difference\$" "$T/a.out"
check "--snapshot: the headline's verdicts name what each is against" program_py "$T/a.json" "
t = dv('answer.cold_start')['text']
assert t.count('LAZY snapshot: ') == 2 and t.count('EAGER snapshot against EAGER: ') == 2, t"
check "--snapshot: each mode's snapshot side judged against that mode (EAGER snapshot against EAGER), EAGER against LAZY" program_py "$T/a.json" "
assert e['program_side4_against'] == 'EAGER' and 'program_side2_against' not in e and 'program_side3_against' not in e, e
assert e['program_side8_against'] == 'EAGER bare', e
n = [dv('compare.%s.wall' % k)['name'] for k in ('lazy_snapshot', 'eager', 'eager_snapshot')]
assert n[0].startswith('LAZY snapshot against LAZY,') and n[1].startswith('EAGER against LAZY,') and n[2].startswith('EAGER snapshot against EAGER,'), n"
expect_grep "--snapshot: the table's verdicts name what each side is against" \
    "EAGER snapshot against EAGER\$" "$T/a.out"
run_harness "$T/schema.json" "$T/schema.err" --schema
check "--snapshot: every key and derived entry declared (--schema), in its unit" \
    python3 tests/check_json.py "$T/a.json" --schema "$T/schema.json"
check "--snapshot: nothing is left locked or checkpointed" nothing_held

# --module-loading=eager: that mode's two sides only; two processes, each
# checkpointed and restored (all locked first, then all checkpointed...).
rm -f "$T"/state/pause.*
# shellcheck disable=SC2086
run_harness "$T/w.out" "$T/w.err" $ONE --module-loading=eager --json="$T/w.json" -- $PROG \
    --workers 1 --live-workers --live "first 5"
expect_exit "--snapshot --module-loading=eager: two processes" 0
check "--snapshot --module-loading=eager: two sides, EAGER and EAGER snapshot; each process stepped" program_py "$T/w.json" "
assert e['program_side1_key'] == 'eager' and e['program_side2_key'] == 'eager_snapshot' and e['program_settings'] == 2
assert m('eager_snapshot.snapshot.processes')[0]['samples'] == [2]
for i in (1, 2):
    assert 87.1 <= m('proc%d.eager_snapshot.snapshot.restore' % i)[0]['samples'][0] < 112
assert m('eager_snapshot.snapshot.mem_before')[0]['samples'] == [128]
assert m('eager_snapshot.snapshot.mem_checkpointed')[0]['samples'] == [0]
assert len([p for p in __import__('os').listdir('$T/state') if p.startswith('pause.')]) >= 2"
expect_grep "--snapshot: two processes: a row each" "^ *2  *[0-9.]*  *[0-9.]*  *[0-9.]*  *[0-9.]*  *64  *0  *64\$" "$T/w.out"

# The four sides, two processes: a process's own table has no verdicts (it
# showed the whole run's beside the process's figures).
# shellcheck disable=SC2086
run_harness "$T/p4.out" "$T/p4.err" $ONE -- $PROG --workers 1 --live-workers --live "first 5"
expect_exit "--snapshot, four sides, two processes" 0
check "--snapshot, four sides, two processes: a process's table without the run's verdicts" python3 -c "
t = open('$T/p4.out').read().split('in the runs that had several CUDA processes')
assert len(t) == 3 and all(' against ' not in b.split('\\n\\n')[0] for b in t[1:]), t[1][:400]
assert 'EAGER snapshot against EAGER' in t[0]"

# Without --ready: ready is the first kernel's stamp plus --ready-after;
# a bare side has no stamp, and takes no snapshot.
# shellcheck disable=SC2086
run_harness "$T/f.out" "$T/f.err" --snapshot --ready-after=0.05 --module-loading=lazy --rounds=1 \
    --max-rounds=1 --warmup=0 --json="$T/f.json" -- $SP --hold 64 --snapshot-wait 0.5 --live "first 5"
expect_exit "--snapshot --ready-after: ready by the first kernel" 0
check "--snapshot --ready-after=0.05: ready was the first kernel's stamp (5 ms) plus 50 ms" program_py "$T/f.json" "
held = m('lazy_snapshot.snapshot.held')[0]['samples'][0]
resumed = m('lazy_snapshot.snapshot.resumed')[0]['samples'][0]
assert abs(resumed - held - 55) < 0.5, (resumed, held)
assert not m('bare.lazy_snapshot.snapshot.lock')"

# Under --squeeze: a holder beside each run takes all but 800 MiB; the
# restore finds its 64 MiB; the eight sides' runs said in one sentence.
# shellcheck disable=SC2086
run_harness "$T/q.out" "$T/q.err" $ONE --squeeze=800 --json="$T/q.json" -- $PROG --live "first 5"
expect_exit "--snapshot --squeeze=800: every side ran" 0
check "--snapshot --squeeze=800: each snapshot side restored its 64 MiB; the runs said once for all" program_py "$T/q.json" "
for side in ('lazy_snapshot', 'eager_snapshot'):
    assert m('%s.snapshot.restore' % side) and m('%s.snapshot.mem_after' % side)[0]['samples'] == [64], side
t = dv('answer.squeeze')['text']
assert t.endswith('free). Every side ran in 1 of 1 runs.'), t"
check "--snapshot --squeeze=800: nothing left locked or checkpointed" nothing_held

# Each failure in one sentence; nothing left held.
# A lock that times out: the kernel the live record says is still running.
# shellcheck disable=SC2086
FAKE_CUDA_CKPT_BUSY=1 run_harness "$T/b.out" "$T/b.err" $ONE --module-loading=lazy \
    --snapshot-lock-timeout=200 -- $PROG --live "first 5;launch 0x1 spinForever 6"
expect_exit "--snapshot: a lock that times out fails the run" 1
expect_grep "--snapshot: the lock's time-out names the process, the run and the kernel still running" \
    "^harness: program: the lock of process [0-9]* (python3) of run 2 (LAZY snapshot, round 1) timed out after [0-9]* ms (--snapshot-lock-timeout=200): its kernel spinForever was still running, and a lock waits for the work a process submitted (CUDA_ERROR_NOT_READY (600))\$" "$T/b.err"
check "--snapshot: the program went on after the time-out (the run's own exit was 0)" \
    grep -q "run 2 (LAZY snapshot, round 1): the program exited 0.*true\|run 2 (LAZY snapshot, round 1)" "$T/b.out"

# Refused by the driver's result: the process unlocked again.
# shellcheck disable=SC2086
FAKE_CUDA_CKPT_FAIL=checkpoint:801 run_harness "$T/r.out" "$T/r.err" $ONE --module-loading=lazy -- $PROG --live "first 5"
expect_exit "--snapshot: a checkpoint the driver refuses fails the run" 1
expect_grep "--snapshot: the refusal is said with the driver's result and what it refuses" \
    "^harness: program: the driver refused to checkpoint process [0-9]* (python3) of run 2 (LAZY snapshot, round 1): CUDA_ERROR_NOT_SUPPORTED (801); a process that holds what the checkpoint API does not take (unified memory, IPC handles) is refused so\$" "$T/r.err"
expect_grep "--snapshot: the refused process is unlocked" \
    "run 2 (LAZY snapshot, round 1): process [0-9]* (python3), left LOCKED, was unlocked after the failed step" "$T/r.err"
check "--snapshot: after a refusal nothing is left locked" nothing_held

# A process that dies while locked.
# shellcheck disable=SC2086
FAKE_CUDA_CKPT_KILL=lock run_harness "$T/k.out" "$T/k.err" $ONE --module-loading=lazy -- $PROG --live "first 5"
expect_exit "--snapshot: a process that dies while locked fails the run" 1
expect_grep "--snapshot: the death while locked is one sentence" \
    "^harness: program: process [0-9]* (python3) of run 2 (LAZY snapshot, round 1) was gone (it exited or was killed) while LOCKED; the checkpoint that followed failed: CUDA_ERROR_INVALID_VALUE (1)\$" "$T/k.err"

# A program that exits before it is ready: nothing checkpointed, said.
# shellcheck disable=SC2086
run_harness "$T/e.out" "$T/e.err" --snapshot --ready=never-printed --rounds=1 --max-rounds=1 --warmup=0 \
    --module-loading=lazy -- $PROG --live "first 5"
expect_exit "--snapshot: a run that ends before ready fails" 1
expect_grep "--snapshot: a run that ends before ready is one sentence" \
    "^harness: program: run 2 (LAZY snapshot, round 1) ended before it was ready (it exited with 0): nothing was checkpointed\$" "$T/e.err"
check "--snapshot: after every failure nothing is left locked or checkpointed" nothing_held

# A driver before 570: one line, the program skipped before any run (3, as
# any part this machine cannot run).
# shellcheck disable=SC2086
FAKE_CUDA_NO_CKPT=1 run_harness "$T/n.out" "$T/n.err" $ONE -- $PROG
expect_exit "--snapshot: no checkpoint API: skipped, exit 3" 3
check "--snapshot: no checkpoint API: one line, 570 or later, and no run made" sh -c "
test \"\$(cat '$T/n.err')\" = 'harness: program: skipped: --snapshot: the driver has no checkpoint API: 570 or later (cuCheckpointProcessLock not found); the program was not run' &&
! grep -q 'run 1' '$T/n.out'"

# Usage: one comparison at a time; the lock's time-out only where a lock is made.
# shellcheck disable=SC2086
run_harness "$T/u.out" "$T/u.err" --snapshot --compare-loading -- $PROG
expect_exit "--snapshot with --compare-loading is a usage error" 2
expect_grep "--snapshot with --compare-loading says why" "^harness: --snapshot compares each loading mode with and without the checkpoint" "$T/u.err"
# shellcheck disable=SC2086
run_harness "$T/v.out" "$T/v.err" --snapshot-lock-timeout=100 -- $PROG
expect_exit "--snapshot-lock-timeout with -- CMD but no --snapshot is a usage error" 2
for v in FAKE_CUDA_CKPT_US FAKE_CUDA_CKPT_GBS FAKE_NVML_MEM_DIR FAKE_CUDA_MEM_DIR FAKE_CUDA_FREE_MIB \
         HARNESS_NVML HARNESS_LIBCUDA LIVE_PLANT STANDIN_STATE; do env_restore $v; done
