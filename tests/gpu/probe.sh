#!/bin/sh
# probe.sh: do the launch section's host-side figures move between
# processes, and does pinning the process to one core or turning address
# space randomisation off (setarch -R) hold them still? The launch section
# in separate processes, three each way, and the spread of each figure.
set -u
L=${L:-/tmp/probe}
mkdir -p "$L"
{ lscpu; nvidia-smi topo -m; } >"$L/topo.txt" 2>&1
K=launch/host.ref,launch/submit.1x1,launch/stream.1x1,launch/device.1x1,launch/submit.grid,launch/stream.grid,launch/device.grid,launch/submit_ex.1x1,launch/graph.launch_host,launch/graph.node,launch/sync.spin.launch_sync,launch/sync.yield.launch_sync
run() { # NAME PREFIX...
    name=$1; shift
    "$@" ./harness --section=launch --quiet --json="$L/$name.json" >"$L/$name.txt" 2>&1
}
NORAND="setarch $(uname -m) -R"
for i in 1 2 3; do run free$i; done
for i in 1 2 3; do run pin$i taskset -c 2; done
for i in 1 2 3; do run norand$i $NORAND taskset -c 2; done
echo "== unpinned"; python3 tests/gpu/spread.py $K "$L"/free*.json
echo "== pinned to core 2"; python3 tests/gpu/spread.py $K "$L"/pin*.json
echo "== pinned to core 2, no address randomisation"; python3 tests/gpu/spread.py $K "$L"/norand*.json
