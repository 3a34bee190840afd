#!/bin/sh
# test_slurm.sh: the harness run through a real Slurm on this one machine:
# munged, slurmctld and slurmd started by the test (a one-node cluster of
# its own in a temp dir, on ports of its own), two tasks of section jit
# (--quick: NVRTC compiles on the CPU; the whole section takes 20 s a task)
# through srun (no GPU: each exits 3), their files named by the harness's
# %j and %t, their environments' slurm_* fields, and scripts/node-summary
# over them; then the daemons stopped. Every wait is bounded. Installs
# nothing: where slurmctld, slurmd, srun, sinfo or munged is missing, or a
# daemon does not come up, it says SKIPPED and why.
: "${HARNESS:=./harness}"
. tests/lib.sh

for tool in slurmctld slurmd srun sinfo munged; do
    if ! command -v "$tool" >/dev/null 2>&1 && ! [ -x "/usr/sbin/$tool" ]; then
        echo "SKIPPED slurm: no $tool (Debian: slurmctld slurmd slurm-client munge)"
        exit 0
    fi
done
PATH="$PATH:/usr/sbin"
if [ "$(id -u)" != 0 ]; then
    echo "SKIPPED slurm: the one-node cluster runs its daemons as root (SlurmUser=root)"
    exit 0
fi
T=$(mktemp -d) || exit 1
pids=
# Stop the daemons (each under timeout(1), which passes the TERM on), wait
# for them, then remove the temp dir.
stop() {
    for p in $pids; do kill "$p" 2>/dev/null; done
    for p in $pids; do wait "$p" 2>/dev/null; done
    pids=
    rm -rf "$T"
}
trap stop EXIT
skip() {
    echo "SKIPPED slurm: $1"
    for f in "$T"/*.log; do [ -s "$f" ] && sed 's/^/  | /' "$f" | tail -5; done
    exit 0
}

h=$(hostname -s)
port=$((20000 + ($$ % 10000) * 2))
mkdir -p "$T/state" "$T/spool" && chmod 700 "$T"
dd if=/dev/urandom of="$T/munge.key" bs=1024 count=1 2>/dev/null && chmod 400 "$T/munge.key"
cat >"$T/slurm.conf" <<CONF
ClusterName=harnesstest
SlurmctldHost=$h(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$T/munge.sock
CredType=cred/munge
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
NodeName=$h NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$T/slurm.conf"

timeout 240 munged --foreground --force --socket="$T/munge.sock" --key-file="$T/munge.key" \
    --pid-file="$T/munged.pid" --log-file="$T/munged.log" --seed-file="$T/munge.seed" \
    >"$T/munged.out.log" 2>&1 &
pids="$pids $!"
i=0
while [ ! -S "$T/munge.sock" ]; do
    i=$((i + 1)); [ "$i" -gt 50 ] && skip "munged did not come up in 10 s"
    sleep 0.2
done
timeout 240 slurmctld -D -i -f "$SLURM_CONF" >"$T/slurmctld.out.log" 2>&1 &
pids="$pids $!"
timeout 240 slurmd -D -N "$h" -f "$SLURM_CONF" >"$T/slurmd.out.log" 2>&1 &
pids="$pids $!"
i=0
until [ "$(timeout 5 sinfo -h -N -n "$h" -o %t 2>/dev/null)" = idle ]; do
    i=$((i + 1)); [ "$i" -gt 30 ] && skip "node $h not idle in sinfo after 30 s"
    sleep 1
done
echo "slurm: a one-node cluster up ($(sinfo -V), node $h idle)"

timeout 120 srun --ntasks=2 --nodes=1 --time=3 "$HARNESS" --section=jit --quick --quiet \
    --json="$T/r-%j-%t.json" >"$T/srun.out" 2>"$T/srun.err"
rc=$?
echo "slurm: srun exited $rc (each task exits 3 without a GPU)"
if [ "$rc" -ne 3 ]; then
    for f in srun.err slurmd.log slurmctld.log; do
        echo "  $f:"; tail -8 "$T/$f" | sed 's/^/  | /'
    done
fi
set -- "$T"/r-*-0.json
job=$(basename "$1" | sed -n 's/^r-\([0-9][0-9]*\)-0\.json$/\1/p')
check "slurm: srun's two tasks wrote r-JOB-0.json and r-JOB-1.json (the harness's %j and %t)" \
    sh -c "test -n '$job' && test -s '$T/r-$job-0.json' && test -s '$T/r-$job-1.json'"
check "slurm: each task's exit code 3 (no GPU), as srun reports it" \
    sh -c "test $rc -eq 3 || grep -q 'exit code 3' '$T/srun.err'"
check "slurm: the environments' slurm_* fields: this job, node $h, tasks 0 and 1 of 2" python3 -c "
import json, sys
e = [json.load(open('$T/r-$job-%d.json' % t))['environment'] for t in (0, 1)]
ok = all(x['slurm_job_id'] == '$job' and x['slurm_node'] == '$h' and x['slurm_ntasks'] == 2
         and x['slurm_localid'] in (0, 1) for x in e) and sorted(x['slurm_procid'] for x in e) == [0, 1]
sys.exit(0 if ok else 1)"
scripts/node-summary "$T"/r-"$job"-*.json --json="$T/summary.json" >"$T/ns.out" 2>&1
nrc=$?
check "slurm: node-summary merges the two tasks' files (exit 0)" test "$nrc" -eq 0
expect_grep "slurm: node-summary names the units by node and task" \
    "^  $h/task 1 (no device): " "$T/ns.out"
check "slurm: node-summary's JSON: two tasks of two, none missing" python3 -c "
import json, sys; d = json.load(open('$T/summary.json'))
sys.exit(0 if d['missing'] == {'expected': 2, 'have': 2, 'tasks_without_file': []} else 1)"

# scripts/fleet.sbatch through sbatch, on the stand-in driver (two devices):
# in a work dir of its own that holds the harness and scripts/.
if [ -n "${FAKECUDA:-}" ] && [ -e "$FAKECUDA" ]; then
    W="$T/work"
    mkdir -p "$W/results" && ln -s "$(cd "$(dirname "$HARNESS")" && pwd)/$(basename "$HARNESS")" "$W/harness" &&
        ln -s "$(pwd)/scripts" "$W/scripts"
    HARNESS_LIBCUDA=$(cd "$(dirname "$FAKECUDA")" && pwd)/$(basename "$FAKECUDA") FAKE_CUDA_DEVICES=2 \
        FAKE_CUDA_KERNEL_US=200 timeout 120 sbatch --wait --chdir="$W" --time=3 \
        scripts/fleet.sbatch --section=crossover --sizes=1024 --reps=6 --warmup=1 \
        >"$T/sbatch.out" 2>&1
    src=$?
    bjob=$(sed -n 's/^Submitted batch job \([0-9]*\).*/\1/p' "$T/sbatch.out")
    check "slurm: sbatch scripts/fleet.sbatch: the merge's exit 1 (the stand-in's checks fail: node named failed)" \
        test "$src" -eq 1
    check "slurm: fleet.sbatch: the node's file at results/fleet-JOB/$h.json, the merge's summary.json beside it" \
        sh -c "test -n '$bjob' && test -s '$W/results/fleet-$bjob/$h.json' && test -s '$W/results/fleet-$bjob/summary.json'"
    expect_grep "slurm: fleet.sbatch: the job's output has the merge's summary over the two devices" \
        "^summary: [0-9]* figures compared across 2 units" "$W/results/fleet-$bjob.out"
    [ -s "$W/results/fleet-$bjob.out" ] && cp "$W/results/fleet-$bjob.out" "${SLURM_TEST_KEEP:-/dev/null}" 2>/dev/null
else
    echo "SKIPPED slurm: fleet.sbatch on the stand-in driver: no FAKECUDA"
fi
daemons=$pids
stop
check "slurm: the daemons stopped" sh -c "! kill -0 $(echo $daemons | sed 's/ / /g') 2>/dev/null"
