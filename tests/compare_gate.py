#!/usr/bin/env python3
"""compare_gate.py: what scripts/compare --fail-on-regression does as a CI
gate, on the stored runs of results/h200-ab/ (tests/gpu/abtest.sh made them
on the H200: a1..a3 the build as it is, c1..c3 the same build reading its
kernel sources from an unchanged copy, b1..b3 the same with two kernels
slowed on purpose: copy4 by the byte model's +50%, wide4 by +10%).

Usage: compare_gate.py [DIR] [--check]

For one run a side (every pair) and for three a side (every way to split
the six runs of one build 3 against 3, each way round, and every three of
them against the three slowed runs) it counts the comparisons the gate
fails (exit 1: a SLOWER row), refuses (exit 2: fewer than 3 runs a side)
or passes, and for each planted figure how often it is SLOWER. It prints
the table docs/compare.md quotes. --check: exit 1 unless the criterion
holds: no A/A comparison fails the gate, every A/B comparison fails it with
every planted figure of 10% or more SLOWER, and one run a side is refused.
"""

import itertools
import os
import sys
from importlib.machinery import SourceFileLoader
import importlib.util

HERE = os.path.dirname(os.path.abspath(__file__))
_loader = SourceFileLoader("compare", os.path.join(HERE, "..", "scripts", "compare"))
cmp = importlib.util.module_from_spec(importlib.util.spec_from_loader("compare", _loader))
_loader.exec_module(cmp)

PLANTED = (("copy4", 50.0), ("wide4", 10.0))
TARGETS = ["fusion/n=%s.%s%s" % (n, k, c) for k, _ in PLANTED for n in ("67108864", "268435456")
           for c in ("", ".cold")]


def gate(a, b):
    """(exit code of --fail-on-regression, the Result or None when refused)."""
    if min(len(a), len(b)) < cmp.MIN_GATE_RUNS:
        return 2, None
    res = cmp.Result(a, b, 0.0, "noise")
    return (1 if any(r.verdict == "SLOWER" for r in res.rows) else 0), res


def old_gate(a, b):
    """What the gate did before it refused one run a side: 1 on any SLOWER."""
    res = cmp.Result(a, b, 0.0, "noise")
    return 1 if any(r.verdict == "SLOWER" for r in res.rows) else 0


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    d = args[0] if args else os.path.join(HERE, "..", "results", "h200-ab")
    runs = {n: cmp.Run(os.path.join(d, n + ".json.gz")) for n in
            ("a1", "a2", "a3", "c1", "c2", "c3", "b1", "b2", "b3")}
    one = [runs[n] for n in ("a1", "a2", "a3", "c1", "c2", "c3")]
    slow = [runs[n] for n in ("b1", "b2", "b3")]
    rows, ok = [], True

    # One run a side: every pair of one build (both ways), every one-build run against a slowed one.
    aa1 = [(x, y) for x, y in itertools.permutations(one, 2)]
    ab1 = [([x], [y]) for x in one for y in slow]
    refused = sum(gate([x], [y])[0] == 2 for x, y in aa1) + sum(gate(x, y)[0] == 2 for x, y in ab1)
    before_aa = sum(old_gate([x], [y]) for x, y in aa1)
    before_ab = sum(old_gate(x, y) for x, y in ab1)
    rows.append(("1 against 1", "A/A", len(aa1), "refused (exit 2)", "%d of %d" % (before_aa, len(aa1))))
    rows.append(("1 against 1", "A/B", len(ab1), "refused (exit 2)", "%d of %d" % (before_ab, len(ab1))))
    ok &= refused == len(aa1) + len(ab1)

    # Three a side: every three of the six one-build runs against the other three, and against B.
    picks = list(itertools.combinations(range(6), 3))
    aa3 = [([one[i] for i in p], [one[i] for i in range(6) if i not in p]) for p in picks]
    fails_aa, flagged_aa = 0, {}
    for a, b in aa3:
        code, res = gate(a, b)
        fails_aa += code == 1
        for r in res.rows:
            if r.verdict == "SLOWER":
                flagged_aa[r.key] = flagged_aa.get(r.key, 0) + 1
    ab3 = [([one[i] for i in p], slow) for p in picks]
    fails_ab, hit = 0, dict.fromkeys(TARGETS, 0)
    change = {k: [] for k, _ in PLANTED}
    for a, b in ab3:
        code, res = gate(a, b)
        fails_ab += code == 1
        for r in res.rows:
            if r.key in hit:
                hit[r.key] += r.verdict == "SLOWER"
                change[[k for k, _ in PLANTED if "." + k in r.key][0]].append(r.change)
    rows.append(("3 against 3", "A/A", len(aa3), "%d fail" % fails_aa, "-"))
    rows.append(("3 against 3", "A/B", len(ab3), "%d fail" % fails_ab, "-"))
    ok &= fails_aa == 0 and fails_ab == len(ab3) and all(v == len(ab3) for v in hit.values())

    print("scripts/compare --fail-on-regression on %s (rule noise, threshold 0%%):" % os.path.relpath(d))
    print("| runs a side | comparison | comparisons | the gate now | failed before (1 run a side gated) |")
    print("|---|---|--:|---|---|")
    for r in rows:
        print("| %s | %s | %d | %s | %s |" % r)
    print("\nplanted figures SLOWER, 3 against 3 (%d comparisons):" % len(ab3))
    for k, pct in PLANTED:
        ch = sorted(change[k])
        print("  %s (+%.0f%% predicted; measured %+.1f%% to %+.1f%%): %s" % (
            k, pct, ch[0], ch[-1], ", ".join("%s %d/%d" % (t.split("/")[1], hit[t], len(ab3))
                                            for t in TARGETS if "." + k in t)))
    if flagged_aa:
        print("A/A SLOWER rows, 3 against 3: %s" % ", ".join("%s %dx" % kv for kv in sorted(flagged_aa.items())))
    print("criterion (0 A/A failures, every A/B failing with every planted figure SLOWER, one run a "
          "side refused): %s" % ("met" if ok else "NOT met"))
    return 0 if ok or not check else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
