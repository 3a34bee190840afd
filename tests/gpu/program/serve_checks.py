#!/usr/bin/env python3
"""serve_checks.py JSON OUTDIR [PRELOAD_JSON]: --compare-loading --ready=^READY$
on program/app_serve.py, checked against the program's own clock.
serve_checks.py --cost OUTDIR SUBSCRIBED_OUTDIR: the probe's cost on the
requests split: each mode's probed less bare runs with the whole probe
(OUTDIR) and with a probe that only subscribes to CUPTI and enables no
callback (SUBSCRIBED_OUTDIR, HARNESS_PROBE_ONLY_SUBSCRIBE=1), each against
its own invocation's bare runs, each with its runs' range: where the
ranges overlap, the cost is within the runs' own spread.

The program times its five requests' first repetitions. Their sum under
LAZY less their sum under EAGER (medians over the bare runs: the program's
own clock with no probe in it) is what the loads cost the requests; the
harness's figure is the stalls of the first uses after ready (ready.stall,
from the probed runs), LAZY less EAGER. They must agree within 10%. The
same sums over the probed runs are printed beside them: probed less bare
is the probe's own cost on the requests (its callbacks on every get and
load after ready), which the stalls do not count. serve_checks.py --cost1 OUTDIR: one mode's probed runs against its bare
ones at as many runs a side as the invocation took (--rounds=N): the sums
of the requests' first repetitions and of their second (warm) ones, each
request's first, their medians and ranges, and a two-sided Mann-Whitney U
test of the sums (normal approximation, ties corrected; p < 0.05 called).
With PRELOAD_JSON (the same program with --preload, LAZY):
its stalls after ready fall to EAGER's or below. Prints PASSED/FAILED.
"""
import glob
import json
import math
import os
import statistics
import sys


def out(ok, what):
    print("%s %s" % ("PASSED" if ok else "FAILED", what))


def program_side(outdir, side):
    vals = []
    for f in sorted(glob.glob(os.path.join(outdir, "run*-%s.out" % side))):
        for line in open(f):
            if line.startswith("{"):
                vals.append(sum(json.loads(line)["first_ms"]))
    return vals


def med(d, key):
    for x in d["measurements"]:
        if x["section"] == "program" and x["key"] == key:
            return x["stats"]["median"]
    return None


def med_range(vals, what):
    """The median of vals, what they are, and their range: "143.3 probed [140.9 to 145.8]"."""
    return "%.1f %s [%.1f to %.1f]" % (statistics.median(vals), what, min(vals), max(vals))


def cost(outdir, subdir):
    """Prints the probe's cost on the requests, whole and subscribed only."""
    for side in ("lazy", "eager"):
        parts = []
        for label, where in (("the whole probe", outdir), ("subscribed only", subdir)):
            probed, bare = program_side(where, side), program_side(where, "bare." + side)
            if probed and bare:
                parts.append("%s %+.1f ms (%s, %s, medians [ranges] of %d and %d runs)"
                             % (label, statistics.median(probed) - statistics.median(bare),
                                med_range(probed, "probed"), med_range(bare, "bare"),
                                len(probed), len(bare)))
        if parts:
            print("the probe's cost on the requests, %s: %s" % (side.upper(), "; ".join(parts)))
    return 0


def program_runs(outdir, side):
    """Each run's JSON line of side's runs in outdir."""
    runs = []
    for f in sorted(glob.glob(os.path.join(outdir, "run*-%s.out" % side))):
        with open(f) as fh:
            for line in fh:
                if line.startswith("{"):
                    runs.append(json.loads(line))
    return runs


def mann_whitney_p(a, b):
    """Two-sided p of the U test of a against b (normal approximation with
    the tie correction; fine from 8 a side)."""
    both = sorted([(v, 0) for v in a] + [(v, 1) for v in b])
    ranks, i, ties = [0.0] * len(both), 0, 0.0
    while i < len(both):
        j = i
        while j + 1 < len(both) and both[j + 1][0] == both[i][0]:
            j += 1
        for k in range(i, j + 1):
            ranks[k] = (i + j) / 2.0 + 1
        t = j - i + 1
        ties += t ** 3 - t
        i = j + 1
    n1, n2 = len(a), len(b)
    r1 = sum(r for r, (_, g) in zip(ranks, both) if g == 0)
    u = r1 - n1 * (n1 + 1) / 2.0
    n = n1 + n2
    var = n1 * n2 / 12.0 * ((n + 1) - ties / (n * (n - 1)))
    if var <= 0:
        return 1.0
    z = (abs(u - n1 * n2 / 2.0) - 0.5) / var ** 0.5
    return max(0.0, min(1.0, math.erfc(max(z, 0.0) / 2 ** 0.5)))


def cost1(outdir):
    """One mode's probe cost on the requests, probed against bare."""
    for side in ("lazy", "eager"):
        probed, bare = program_runs(outdir, side), program_runs(outdir, "bare." + side)
        if not probed or not bare:
            continue
        for what, key in (("first repetitions", "first_ms"), ("second (warm) repetitions", "second_ms")):
            p = [sum(r[key]) for r in probed]
            b = [sum(r[key]) for r in bare]
            d = statistics.median(p) - statistics.median(b)
            pv = mann_whitney_p(p, b)
            print("%s, the requests' %s: probed %s, bare %s: %+.1f ms (%+.1f%%), U test p %.3f: %s"
                  % (side.upper(), what, med_range(p, "ms"), med_range(b, "ms"), d,
                     100.0 * d / statistics.median(b), pv,
                     "a difference" if pv < 0.05 else "no difference called"))
        for i in range(min(len(r["first_ms"]) for r in probed + bare)):
            p = [r["first_ms"][i] for r in probed]
            b = [r["first_ms"][i] for r in bare]
            print("  request %d first: probed %s, bare %s: %+.1f ms, U test p %.3f"
                  % (i + 1, med_range(p, "ms"), med_range(b, "ms"),
                     statistics.median(p) - statistics.median(b), mann_whitney_p(p, b)))
    return 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--cost1":
        return cost1(sys.argv[2])
    if len(sys.argv) == 4 and sys.argv[1] == "--cost":
        return cost(sys.argv[2], sys.argv[3])
    d = json.load(open(sys.argv[1]))
    lazy, eager = program_side(sys.argv[2], "bare.lazy"), program_side(sys.argv[2], "bare.eager")
    plazy, peager = program_side(sys.argv[2], "lazy"), program_side(sys.argv[2], "eager")
    if not lazy or not eager or med(d, "lazy.ready.stall") is None:
        out(False, "the program's request times (bare runs) and the harness's stalls read")
        return 1
    prog = statistics.median(lazy) - statistics.median(eager)
    harn = med(d, "lazy.ready.stall") - med(d, "eager.ready.stall")
    print("program, bare: requests' first repetitions %.1f ms LAZY, %.1f ms EAGER: %.1f ms"
          % (statistics.median(lazy), statistics.median(eager), prog))
    if plazy and peager:
        print("program, probed: %.1f ms LAZY, %.1f ms EAGER: %.1f ms (the probe's own cost on the "
              "requests: %+.1f ms LAZY, %+.1f ms EAGER)"
              % (statistics.median(plazy), statistics.median(peager),
                 statistics.median(plazy) - statistics.median(peager),
                 statistics.median(plazy) - statistics.median(lazy),
                 statistics.median(peager) - statistics.median(eager)))
    print("harness: stalls after ready %.1f ms LAZY, %.1f ms EAGER: %.1f ms"
          % (med(d, "lazy.ready.stall"), med(d, "eager.ready.stall"), harn))
    out(prog != 0 and abs(harn - prog) <= 0.1 * abs(prog),
        "the stalls after ready, LAZY less EAGER (%.1f ms), within 10%% of the program's own, bare (%.1f ms): %+.1f%%"
        % (harn, prog, 100 * (harn - prog) / abs(prog) if prog else float("nan")))
    names = [x["name"] for x in d["derived"] if x["key"].startswith("ready.lazy.")]
    out(len(names) >= 3, "the first uses after ready named under LAZY: %s" % ", ".join(n[:40] for n in names[:6]))
    for k in ("answer.ready", "answer.headroom", "answer.autotune"):
        t = [x["text"] for x in d["derived"] if x["key"] == k]
        print("%s: %s" % (k, t[0] if t else "none"))
    if len(sys.argv) > 3:
        p = json.load(open(sys.argv[3]))
        pl = med(p, "lazy.ready.stall")
        out(pl is not None and pl <= max(med(d, "eager.ready.stall") * 1.5, 1.0),
            "preloaded before ready, LAZY's stalls after ready %.1f ms (EAGER's %.1f, LAZY's %.1f without)"
            % (pl if pl is not None else float("nan"), med(d, "eager.ready.stall"), med(d, "lazy.ready.stall")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
