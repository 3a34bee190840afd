#!/bin/sh
# probe.sh: where do launch figures move between processes? Topology, then
# the launch section in separate processes, unpinned and pinned to a core.
set -u
L=${L:-/tmp/probe}
mkdir -p "$L"
{ lscpu; nvidia-smi topo -m; cat /sys/bus/pci/devices/*/numa_node 2>/dev/null | sort | uniq -c;
  cat /proc/cmdline; cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>/dev/null; } >"$L/topo.txt" 2>&1
K=launch/host.ref,launch/submit.1x1,launch/stream.1x1,launch/device.1x1,launch/submit.grid,launch/stream.grid,launch/submit_ex.1x1,launch/graph.launch_host,launch/graph.node,launch/sync.spin.launch_sync,launch/sync.yield.launch_sync
run() { # NAME PREFIX...
    name=$1; shift
    "$@" ./build/harness --section=launch --quiet --json="$L/$name.json" >"$L/$name.txt" 2>&1
    grep -h "^ *Run time\|cpu" "$L/$name.txt" | tail -1
}
for i in 1 2 3; do run free$i; done
for cpu in 0 4 8 12; do run pin$cpu taskset -c $cpu; done
for i in 1 2; do run pin0b$i taskset -c 0; done
echo "== unpinned"; python3 tests/gpu/spread.py $K "$L"/free*.json
echo "== pinned to 0, 4, 8, 12"; python3 tests/gpu/spread.py $K "$L"/pin0.json "$L"/pin4.json "$L"/pin8.json "$L"/pin12.json
echo "== pinned to 0, three times"; python3 tests/gpu/spread.py $K "$L"/pin0.json "$L"/pin0b*.json
