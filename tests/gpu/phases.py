#!/usr/bin/env python3
"""phases.py LOG: where a run's time went, from HARNESS_PHASE_LOG's lines
(pid, CLOCK_MONOTONIC ms, phase): per process kind (a child's first line
names it), the mean time from each phase's start to the next line, over
the processes of that kind; the parent's phases likewise."""
import sys
from collections import defaultdict

def main(path):
    by_pid = defaultdict(list)
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 3:
                continue
            try:
                by_pid[int(parts[0])].append((float(parts[1]), parts[2]))
            except ValueError:
                continue
    kinds = defaultdict(lambda: defaultdict(list))
    counts = defaultdict(int)
    first = min(by_pid, key=lambda p: by_pid[p][0][0])
    for pid, lines in by_pid.items():
        lines.sort()
        kind = "parent" if pid == first else lines[0][1]
        counts[kind] += 1
        for (t0, name), (t1, _) in zip(lines, lines[1:]):
            kinds[kind][name].append(t1 - t0)
        if kind != "parent":
            kinds[kind]["(whole child, first line to exit)"].append(lines[-1][0] - lines[0][0])
    for kind in sorted(kinds, key=lambda k: -sum(map(sum, kinds[k].values()))):
        print("%s: %d process%s" % (kind, counts[kind], "" if counts[kind] == 1 else "es"))
        for name, v in sorted(kinds[kind].items(), key=lambda kv: -sum(kv[1])):
            if name == "-" and kind == "parent":
                continue
            print("  %8.1f ms total  %8.1f ms mean  x%-3d %s" % (sum(v), sum(v) / len(v), len(v), name))

if __name__ == "__main__":
    main(sys.argv[1])
