#!/bin/sh
# test_node.sh: --device=all and --device=LIST on the stand-in driver
# (tests/fakecuda) at 1, 2 and 8 devices: one child per device, the merge
# into one JSON (each entry tagged with its device, the environment listing
# every device), the node summary and its outlier rule (a device made 1.5x
# slower by FAKE_CUDA_SLOW is named at +50%, worked out by hand: every
# launch adds FAKE_CUDA_KERNEL_US to the event clock, times 1.5 on that
# device), a device that breaks mid-run (FAKE_CUDA_FAIL) named while the
# others run, the bad inputs, scripts/node-summary over several files, and
# scripts/compare on a node file. The stand-in's kernels compute nothing,
# so its runs fail their element checks (exit 1) except --module's.
: "${HARNESS:=./harness}"
: "${CUDA_HOME:=/usr/local/cuda}"
. tests/lib.sh
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT

if [ -z "${FAKECUDA:-}" ] || [ ! -e "$FAKECUDA" ]; then
    echo "SKIPPED node runs: no stand-in driver (FAKECUDA)"
    exit 0
fi

# py CODE...: python3 with the JSON reader on the path, the checks in CODE.
py() {
    python3 -c "import sys; sys.path.insert(0, 'scripts'); import harness_json as hj
$1"
}

# No driver: --device=all and a LIST have no device to run on: exit 2, one
# line, the JSON incomplete with the reason.
HARNESS_LIBCUDA=/nonexistent/libcuda.so.1 run_harness "$T/nd.out" "$T/nd.err" --device=all \
    --section=crossover --json="$T/nd.json"
expect_exit "--device=all, no driver: a usage error" 2
check "--device=all, no driver: one line, naming the option and the reason" sh -c \
    "test \$(wc -l <'$T/nd.err') -eq 1 && grep -q '^harness: --device=all: no CUDA driver: ' '$T/nd.err'"
check "--device=all, no driver: the JSON is incomplete, the skip says why" py "
r = hj.load('$T/nd.json'); s = r.doc['skipped']
sys.exit(0 if r.doc['incomplete'] and s[0]['section'] == 'node' and 'no CUDA driver' in s[0]['reason'] else 1)"

export HARNESS_LIBCUDA="$FAKECUDA"
export FAKE_CUDA_KERNEL_US=200
RUN="--section=crossover --sizes=1024 --reps=6 --warmup=1"

# A device the machine does not have: exit 2 before any device runs.
FAKE_CUDA_DEVICES=2 run_harness "$T/bad.out" "$T/bad.err" --device=0,3 $RUN --json="$T/bad.json"
expect_exit "--device=0,3 on a machine of 2: a usage error" 2
check "--device=0,3 on a machine of 2: one line naming the device and the count" sh -c \
    "test \$(wc -l <'$T/bad.err') -eq 1 && grep -q '^harness: --device=0,3: device 3 does not exist: this machine has 2 CUDA devices (0..1)$' '$T/bad.err'"
check "--device=0,3: no device ran (no device in the JSON), marked incomplete" py "
r = hj.load('$T/bad.json'); sys.exit(0 if r.doc['incomplete'] and not r.devices and not r.doc['measurements'] else 1)"

# One device: --device=all is --device=0 run in a child.
FAKE_CUDA_DEVICES=1 run_harness "$T/a1.out" "$T/a1.err" --device=all $RUN --json="$T/a1.json"
expect_exit "1 device, --device=all: the run's own exit code (the stand-in's checks fail)" 1
expect_grep "1 device: its tables under its header" "^======== device 0: Fake GPU (00000000:19:00.0) ========" "$T/a1.out"
expect_grep "1 device: the node summary has nothing to compare" "one device: nothing to compare it with" "$T/a1.out"
expect_grep "1 device: the summary says 1 device, not 1 devices" "^node summary: 1 device, " "$T/a1.out"
FAKE_CUDA_DEVICES=1 run_harness "$T/s1.out" "$T/s1.err" $RUN --json="$T/s1.json"
check "1 device: the same figures as --device=0 (scripts/compare --threshold=2: both kernel figures SAME)" sh -c "
scripts/compare --threshold=2 '$T/s1.json' '$T/a1.json' >'$T/c1.out' &&
test \$(grep -c '^crossover/n=1024.kernel[.a-z]*  *ms .* SAME\$' '$T/c1.out') -eq 2"

# Two devices: the merge.
FAKE_CUDA_DEVICES=2 run_harness "$T/a2.out" "$T/a2.err" --device=all $RUN --json="$T/a2.json" \
    --csv="$T/a2.csv"
expect_exit "2 devices: exit 1 (the stand-in's checks)" 1
check "2 devices: two device headers, then the node summary" sh -c "
test \$(grep -c '^======== device [01]: ' '$T/a2.out') -eq 2 && grep -q '^node summary: 2 devices' '$T/a2.out'"
check "2 devices: the environment lists both, with bus ids, UUIDs and each one's record" py "
r = hj.load('$T/a2.json'); d = r.doc['environment']['devices']
ok = [x['ordinal'] for x in d] == [0, 1] and d[1]['pci_bus_id'] == '00000000:29:00.0' and \
     d[0]['uuid'] != d[1]['uuid'] and d[1]['environment']['device'] == 1 and \
     d[1]['environment']['pci_bus_id'] == d[1]['pci_bus_id']
sys.exit(0 if ok else 1)"
check "2 devices: every measurement carries its device, each device's figures as its own run" py "
r = hj.load('$T/a2.json'); ms = r.doc['measurements']
both = all(m['device']['ordinal'] in (0, 1) and m['device']['uuid'] for m in ms)
v0, v1 = r.view(0), r.view(1)
sys.exit(0 if both and set(v0.meas) == set(v1.meas) and len(v0.meas) + len(v1.meas) == len(ms) and
         v1.env['pci_bus_id'] == '00000000:29:00.0' else 1)"
check "2 devices: each device's failed checks carry their device" py "
r = hj.load('$T/a2.json')
own = [c for c in r.doc['checks'] if c['section'] == 'crossover']
sys.exit(0 if own and {c['device']['ordinal'] for c in own} == {0, 1} else 1)"
check "2 devices: the CSV has a row per measurement with its device" sh -c "
test \$(grep -c ',0\$' '$T/a2.csv') -ge 1 && test \$(grep -c ',1\$' '$T/a2.csv') -eq \$(grep -c ',0\$' '$T/a2.csv')"
check "2 devices: each device child got the run's options, not its files (no JSON of its own)" sh -c "
! grep -q 'cannot write\|name the same file' '$T/a2.err'"

# Eight devices, device 2 made 1.5x slower: named at +50% in every kernel
# figure, and no other device in those.
FAKE_CUDA_DEVICES=8 FAKE_CUDA_SLOW=2:1.5 run_harness "$T/a8.out" "$T/a8.err" --device=all $RUN \
    --json="$T/a8.json"
expect_exit "8 devices, one slow: exit 1 (the stand-in's checks)" 1
check "8 devices: device 2 named in every event-timed kernel figure at +45% to +55%, no other" py "
r = hj.load('$T/a8.json')
ks = [k for (s, k) in r.derived if s == 'node' and k.startswith('crossover/') and '.kernel' in k]
ok = len(ks) == 2
for k in ks:
    d = r.conclusion('node', k); f = d['fields']
    ok = ok and f['devices'] == 8 and f['outliers'] == 1 and f['worst_ordinal'] == 2 and \
         45 <= f['worst_pct'] <= 55 and d['text'].startswith('device 2 (00000000:39:00.0) +')
sys.exit(0 if ok else 1)"
check "8 devices: the CPU loop (host_only) is no device's figure: not in the summary" py "
r = hj.load('$T/a8.json')
sys.exit(0 if r.conclusion('node', 'crossover/n=1024.cpu') is None and
         r.view(0).get('crossover', 'n=1024.cpu')['host_only'] is True else 1)"
expect_grep "8 devices: the summary names device 2 with its bus id" \
    "device 2 (00000000:39:00.0) is off in [1-9][0-9]* of" "$T/a8.out"
check "8 devices: scripts/node-summary names the same device in the kernel figures" sh -c "
scripts/node-summary '$T/a8.json' >'$T/ns8.out' &&
grep -q '^crossover/n=1024.kernel  .*/2 (00000000:39:00.0) +[45][0-9]\.[0-9]%\$' '$T/ns8.out' &&
grep -q '^summary: ' '$T/ns8.out'"
check "8 devices: a threshold above the slowdown names no one in the kernel figures" sh -c "
FAKE_CUDA_DEVICES=8 FAKE_CUDA_SLOW=2:1.5 '$HARNESS' --device=all $RUN --node-threshold=60 \
    --json='$T/a8t.json' >/dev/null 2>&1
python3 -c \"import sys; sys.path.insert(0, 'scripts'); import harness_json as hj
r = hj.load('$T/a8t.json'); d = r.conclusion('node', 'crossover/n=1024.kernel')
sys.exit(0 if d['fields']['outliers'] == 0 and r.value('node', 'summary', 'threshold_pct') == 60 else 1)\""

# A device that breaks mid-run: named with its first error; the others run.
FAKE_CUDA_DEVICES=8 FAKE_CUDA_FAIL=5 run_harness "$T/f8.out" "$T/f8.err" --device=all $RUN \
    --json="$T/f8.json"
expect_exit "8 devices, device 5 failing: exit 1" 1
check "device 5 failing: its check names it, its bus id and the error; the JSON is incomplete" py "
r = hj.load('$T/f8.json')
c = [c for c in r.doc['checks'] if c['section'] == 'node' and c['what'].startswith('device 5 ')]
sys.exit(0 if len(c) == 1 and not c[0]['passed'] and '00000000:69:00.0' in c[0]['what'] and
         'CUDA_ERROR_ECC_UNCORRECTABLE' in c[0]['detail'] and r.doc['incomplete'] else 1)"
check "device 5 failing: the devices after it ran (device 7 has its figures)" py "
r = hj.load('$T/f8.json'); sys.exit(0 if r.view(7).get('crossover', 'n=1024.kernel') else 1)"
check "device 5 failing: the kernel figure is summarised over the 7 devices that measured it" py "
r = hj.load('$T/f8.json'); d = r.conclusion('node', 'crossover/n=1024.kernel')
sys.exit(0 if d['fields']['devices'] == 7 and d['fields']['outliers'] == 0 else 1)"

# A LIST: only those devices, in that order.
FAKE_CUDA_DEVICES=8 run_harness "$T/l.out" "$T/l.err" --device=6,1 $RUN --json="$T/l.json"
check "--device=6,1: devices 6 and 1, in that order" py "
r = hj.load('$T/l.json'); sys.exit(0 if r.devices == [6, 1] else 1)"

# A node run where every check passes: --module on the stand-in, exit 0.
if [ -x "$CUDA_HOME/bin/nvcc" ]; then
    printf 'extern "C" __global__ void k(float *a) { a[0] += 1; }\n' >"$T/k.cu"
    "$CUDA_HOME/bin/nvcc" -fatbin -arch=sm_90 -o "$T/k.fatbin" "$T/k.cu" 2>/dev/null
    FAKE_CUDA_DEVICES=2 run_harness "$T/m.out" "$T/m.err" --device=all --section=loading \
        --module="$T/k.fatbin" --rounds=1 --json="$T/m.json"
    expect_exit "--device=all --module, every check passing: exit 0" 0
    check "--device=all --module: each device's check passed, the JSON complete" py "
r = hj.load('$T/m.json'); c = [c for c in r.doc['checks'] if c['section'] == 'node']
sys.exit(0 if len(c) == 2 and all(x['passed'] for x in c) and not r.doc['incomplete'] else 1)"
else
    echo "SKIPPED --device=all --module: no nvcc"
fi

# scripts/node-summary over several nodes' files: two "nodes" (SLURMD_NODENAME
# names them; the same host here), node B's device 1 1.3x slower; scripts/compare
# on a node file.
SLURMD_NODENAME=nodeA FAKE_CUDA_DEVICES=2 "$HARNESS" --device=all $RUN --json="$T/nodeA.json" >/dev/null 2>&1
SLURMD_NODENAME=nodeB FAKE_CUDA_DEVICES=2 FAKE_CUDA_SLOW=1:1.3 "$HARNESS" --device=all $RUN --json="$T/nodeB.json" >/dev/null 2>&1
scripts/node-summary "$T/nodeA.json" "$T/nodeB.json" --fail-on-outlier >"$T/ns.out" 2>"$T/ns.err"
rc=$?
expect_exit "node-summary over two nodes, one slow GPU: --fail-on-outlier gives 1" 1
expect_grep "node-summary: four units in two files" "^4 units (device of a file) in 2 files" "$T/ns.out"
expect_grep "node-summary: the slow GPU is named in the kernel figure, at about +30%, by node" \
    "^crossover/n=1024.kernel .*nodeB/1 (00000000:29:00.0) +[23][0-9]\.[0-9]%" "$T/ns.out"
check "node-summary: no other unit named in the kernel figures" sh -c \
    "! grep '^crossover/n=1024.kernel' '$T/ns.out' | grep -q 'nodeA/\|nodeB/0'"
cp "$T/nodeA.json" "$T/nodeA2.json"
scripts/node-summary "$T/nodeA.json" "$T/nodeA2.json" >"$T/dup.out" 2>"$T/dup.err"
rc=$?
expect_exit "node-summary: two files claiming the same node and device: refused, exit 2" 2
check "node-summary: the refusal is one line naming both files, the node and the device" sh -c \
    "test \$(wc -l <'$T/dup.err') -eq 1 && grep -q 'nodeA.json and .*nodeA2.json both claim node nodeA device 0' '$T/dup.err' && test ! -s '$T/dup.out'"
scripts/node-summary "$T/nodeA.json" "$T/nd.err" >/dev/null 2>"$T/nsb.err"
rc=$?
expect_exit "node-summary: a file that is not JSON: exit 2" 2
check "node-summary: one line naming the file" sh -c "test \$(wc -l <'$T/nsb.err') -eq 1 && grep -q 'nd.err' '$T/nsb.err'"
scripts/node-summary "$T/s1.json" >"$T/ns1.out" 2>&1
rc=$?
expect_exit "node-summary: one unit: exit 0" 0
expect_grep "node-summary: one unit: nothing to compare" "^one unit: nothing to compare it with" "$T/ns1.out"
scripts/compare "$T/nodeA.json" "$T/nodeB.json" >"$T/cn.out" 2>"$T/cn.err"
rc=$?
expect_exit "compare: node files of several devices without --device: exit 2" 2
expect_grep "compare: says to pick a device" "a node run of 2 devices (0, 1): pick one with --device=N" "$T/cn.err"
scripts/compare "$T/nodeA.json" "$T/nodeB.json" --device=1 >"$T/cd.out" 2>&1
rc=$?
expect_exit "compare --device=1: exit 0" 0
expect_grep "compare --device=1: device 1's kernel figure is SLOWER (1.3x)" \
    "^crossover/n=1024.kernel  *ms .* SLOWER$" "$T/cd.out"
scripts/compare "$T/nodeA.json" "$T/nodeB.json" --device=4 >/dev/null 2>"$T/c4.err"
rc=$?
expect_exit "compare --device=4 on nodes of 2: exit 2" 2
expect_grep "compare --device=4: names the devices there are" "no device 4 in this node run (it has 0, 1)" "$T/c4.err"

# Under Slurm (its variables set by hand; no Slurm needed): the output
# paths' placeholders expanded, the task's place in the environment.
mkdir -p "$T/fleet-4242"
SLURM_JOB_ID=4242 SLURMD_NODENAME=gpu07 SLURM_PROCID=3 SLURM_NTASKS=4 SLURM_LOCALID=0 \
    FAKE_CUDA_DEVICES=2 run_harness "$T/sl.out" "$T/sl.err" --device=all $RUN --quiet \
    --json="$T/fleet-%j/%n-%t.json" --csv="$T/fleet-%j/%n-%t.csv"
expect_exit "under Slurm: the run's own exit code (the stand-in's checks)" 1
check "under Slurm: --json and --csv land at the expanded names" sh -c \
    "test -s '$T/fleet-4242/gpu07-3.json' && test -s '$T/fleet-4242/gpu07-3.csv'"
check "under Slurm: the environment has slurm_job_id, slurm_node, slurm_procid, slurm_ntasks, slurm_localid" py "
e = hj.load('$T/fleet-4242/gpu07-3.json').env
sys.exit(0 if (e['slurm_job_id'], e['slurm_node'], e['slurm_procid'], e['slurm_ntasks'],
               e['slurm_localid']) == ('4242', 'gpu07', 3, 4, 0) else 1)"
check "outside Slurm: no slurm_* field" py "
sys.exit(0 if not [k for k in hj.load('$T/a2.json').env if k.startswith('slurm_')] else 1)"
SLURM_JOB_ID=4242 run_harness "$T/slb.out" "$T/slb.err" $RUN --json="$T/r-%x.json"
expect_exit "--json=r-%x.json: a usage error" 2
check "--json=r-%x.json: the error line names the option and the placeholder, then the hint; nothing written" sh -c \
    "test \$(wc -l <'$T/slb.err') -eq 2 && grep -q \"^harness: --json=$T/r-%x.json: unknown placeholder '%x'\" '$T/slb.err' && ! ls '$T'/r-* >/dev/null 2>&1"

# A fleet of four "nodes" (Slurm's variables set by hand, the stand-in
# driver): n2's device 1 1.5x slower, n3 with one device where the others
# have two, task 4 of 5 without a file; then the bad inputs: a file from
# another harness version, a truncated one, a missing one, a node of another
# GPU model.
F="$T/fleet-99"
mkdir -p "$F"
for i in 0 1 2 3; do
    nd=2; slow=
    [ "$i" = 3 ] && nd=1
    [ "$i" = 2 ] && slow=1:1.5
    SLURM_JOB_ID=99 SLURMD_NODENAME=n$i SLURM_PROCID=$i SLURM_NTASKS=5 FAKE_CUDA_DEVICES=$nd \
        FAKE_CUDA_SLOW=$slow "$HARNESS" --device=all $RUN --quiet --json="$F/%n.json" >/dev/null 2>&1
done
scripts/node-summary "$F"/n*.json --json="$F/summary.json" >"$T/fl.out" 2>"$T/fl.err"
rc=$?
expect_exit "fleet of 4 nodes: exit 0 without --fail-on-outlier" 0
expect_grep "fleet: one table, a column for each node" \
    "^figure (section/key) .* median ms  *spread  *n0  *n1  *n2  *n3  named$" "$T/fl.out"
expect_grep "fleet: the kernel figure names n2's device 1 at about +50% and node n2 at about +25%" \
    "^crossover/n=1024.kernel  .*  n2/1 (00000000:29:00.0) +[45][0-9]\.[0-9]%; node n2 +2[0-9]\.[0-9]%$" "$T/fl.out"
expect_grep "fleet: task 4 of 5 named as missing" "^missing: 1 of 5 nodes have no file (Slurm tasks 4)$" "$T/fl.out"
expect_grep "fleet: n3 named as short of devices" "^short: node n3 has 1 device; another node has 2$" "$T/fl.out"
expect_grep "fleet: a node whose checks failed is named failed (the stand-in's checks fail)" \
    "^failed: node n0 (.*n0.json): incomplete; [0-9]* of [0-9]* checks failed" "$T/fl.out"
check "fleet: --json has the figures, who is named, the missing task, the short node" py "
import json; d = json.load(open('$F/summary.json'))
k = [f for f in d['figures'] if f['figure'] == 'crossover/n=1024.kernel'][0]
ok = [u['unit'] for u in k['units_named']] == ['n2/1 (00000000:29:00.0)'] and \
     [n['node'] for n in k['nodes_named']] == ['n2'] and sorted(k['nodes']) == ['n0', 'n1', 'n2', 'n3'] and \
     d['missing'] == {'expected': 5, 'have': 4, 'tasks_without_file': [4]} and d['short'] == ['n3'] and \
     d['nodes_off'] == {'n2': d['summary']['figures_compared']} and not d['left_out']
sys.exit(0 if ok else 1)"
scripts/node-summary "$F"/n0.json "$F"/n1.json --expect-nodes=3 >"$T/fe.out" 2>&1
expect_grep "fleet: --expect-nodes=3 over the files of 2 Slurm tasks of 5: the task count wins only without it" \
    "^missing: 1 of 3 nodes have no file$" "$T/fe.out"
py "
import json; d = json.load(open('$F/n1.json'))
d['environment']['harness_version'] = '0.0.9'; d['environment']['slurm_node'] = 'old'
json.dump(d, open('$F/old.json', 'w'))
d = json.load(open('$F/n1.json')); e = d['environment']; e['slurm_node'] = 'n9'; e['slurm_procid'] = 4
for x in e['devices']:
    x['name'] = x['environment']['gpu'] = 'Other GPU'
json.dump(d, open('$F/n9.json', 'w'))"
head -c 700 "$F/n0.json" >"$F/cut.json"
scripts/node-summary "$F"/n0.json "$F"/n1.json "$F/old.json" --fail-on-outlier >"$T/fv.out" 2>"$T/fv.err"
rc=$?
expect_exit "fleet: a file of another harness version: left out; with --fail-on-outlier 1" 1
check "fleet: the other version named on stderr, one line, left out of the table" sh -c \
    "test \$(wc -l <'$T/fv.err') -eq 1 && grep -q 'left out: .*old.json: harness_version 0.0.9, the others. is 0.1.0' '$T/fv.err' && grep -q '^4 units (device of a file) in 2 files' '$T/fv.out'"
scripts/node-summary "$F"/n0.json "$F"/n1.json "$F/cut.json" "$F/none.json" >"$T/fc.out" 2>"$T/fc.err"
rc=$?
expect_exit "fleet: a truncated file and a missing one: exit 2" 2
check "fleet: each named on stderr, the rest merged" sh -c \
    "test \$(wc -l <'$T/fc.err') -eq 2 && grep -q 'cut.json' '$T/fc.err' && grep -q 'none.json' '$T/fc.err' && grep -q '^4 units (device of a file) in 2 files' '$T/fc.out'"
scripts/node-summary "$F"/n0.json "$F"/n1.json "$F"/n2.json "$F/n9.json" >"$T/fm.out" 2>&1
rc=$?
expect_exit "fleet: a mix of GPU models: exit 0" 0
expect_grep "fleet: a mix of GPU models said, compared within each" \
    "^GPU models differ (Fake GPU: 6, Other GPU: 2): each figure is compared within its model$" "$T/fm.out"
check "fleet: n2's device still named among its model; n9 (the only node of its model) not" sh -c \
    "grep -q '^crossover/n=1024.kernel .*n2/1 (00000000:29:00.0) +' '$T/fm.out' && ! grep '^crossover' '$T/fm.out' | grep -q 'n9'"
