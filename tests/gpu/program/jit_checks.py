#!/usr/bin/env python3
"""jit_checks.py JSON OUTDIR: --jit-cache=cold,warm on program/ptx_app.cu,
checked against the program's own clock.

The program prints, per run, the host time around its first launches
(first_total_ms; each first launch and its synchronize, after the context
exists). Cold less warm of its median is the JIT it saw. The harness's
figure is code.ms (host time inside loads, gets and first launches, from
the probe), cold less warm of its median, probed sides. They must agree
within 10%; cold against warm must be called; the warm side's
CUDA_CACHE_PATH must hold the compiled kernels. Prints PASSED/FAILED lines.
"""
import glob
import json
import os
import statistics
import sys


def out(ok, what):
    print("%s %s" % ("PASSED" if ok else "FAILED", what))
    return ok


def program_side(outdir, side):
    vals = []
    for f in sorted(glob.glob(os.path.join(outdir, "run*-%s.out" % side))):
        for line in open(f):
            line = line.strip()
            if line.startswith("{"):
                vals.append(json.loads(line)["first_total_ms"])
    return vals


def main():
    d = json.load(open(sys.argv[1]))
    outdir = sys.argv[2]
    m = {x["key"]: x for x in d["measurements"] if x["section"] == "program"}
    dv = {x["key"]: x for x in d["derived"] if x["section"] == "program"}
    cold, warm = program_side(outdir, "cold"), program_side(outdir, "warm")
    out(len(cold) >= 3 and len(warm) >= 3, "the program's own first-launch times read (%d cold, %d warm runs)"
        % (len(cold), len(warm)))
    if not cold or not warm or "cold.code.ms" not in m or "warm.code.ms" not in m:
        out(False, "the harness's code.ms on both sides")
        return 1
    prog = statistics.median(cold) - statistics.median(warm)
    harn = m["cold.code.ms"]["stats"]["median"] - m["warm.code.ms"]["stats"]["median"]
    print("program: first launches %.1f ms cold, %.1f ms warm (medians): JIT %.1f ms"
          % (statistics.median(cold), statistics.median(warm), prog))
    print("harness: loads, gets, first launches %.1f ms cold, %.1f ms warm (medians): JIT %.1f ms"
          % (m["cold.code.ms"]["stats"]["median"], m["warm.code.ms"]["stats"]["median"], harn))
    out(prog > 0 and abs(harn - prog) <= 0.10 * prog,
        "the JIT the harness measures (%.1f ms) within 10%% of the program's own (%.1f ms): %+.1f%%"
        % (harn, prog, 100 * (harn - prog) / prog if prog else float("nan")))
    v = dv.get("compare.code.ms", {}).get("text", "")
    out(v == "cold higher", "cold against warm called on loads, gets and first launches: %s" % v)
    ptx = m.get("cold.ptx.n", {}).get("stats", {}).get("median", 0)
    out(ptx >= 1, "PTX images handed to the driver on the cold side: %g" % ptx)
    cache = m.get("warm.cache.cuda", {}).get("stats", {}).get("median", 0)
    out(cache > 0, "the warm side's CUDA_CACHE_PATH holds the compiled code: %.3f MiB" % cache)
    print(dv.get("answer.jit", {}).get("text", "no answer.jit"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
