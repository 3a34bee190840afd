#!/usr/bin/env python3
"""snapshot_cmd_checks.py JSON OUTDIR: the checks of tests/gpu/snapshot.sh's
-- CMD --snapshot part, on the harness's results (JSON) and the outputs of
tests/gpu/program/snap_torch.py it kept (--program-output=OUTDIR: one JSON
line of the program's per run, "runNN-<side>.out"). One line a check,
PASSED or FAILED; exits 1 on a failure.

- every run's buffers were intact after the run (its own check, every
  element of every buffer), on every side;
- on each snapshot side, run by run: lock + checkpoint + restore + unlock
  (the harness's clock) within 10% of the program's own pause (the longest
  gap of its ticking thread);
- NVML: the device memory before the lock at least the buffers, none while
  checkpointed, the same after the unlock;
- the first uses after the restore name the first request's kernels
  (sort, softmax, cumsum, an FFT), on each snapshot side;
- the answer says, for each mode, the restore against the cold start."""
import glob
import json
import os
import re
import sys

failed = 0
STEPS = ("lock", "checkpoint", "restore", "unlock")
OPS = {"sort": r"(?i)sort", "softmax": r"(?i)softmax", "cumsum": r"(?i)scan|cumsum",
       "fft": r"(?i)fft"}


def check(what, ok, detail=""):
    global failed
    print("%s snapshot --: %s%s" % ("PASSED" if ok else "FAILED", what, (": " + detail) if detail else ""))
    failed += not ok


def outputs(outdir, side):
    """The program's JSON line of each measured run of side, in run order."""
    got = []
    for path in sorted(glob.glob(os.path.join(outdir, "run*-%s.out" % side)),
                       key=lambda p: int(re.search(r"run(\d+)-", os.path.basename(p)).group(1))):
        line = [ln for ln in open(path, errors="replace") if ln.startswith('{"snap_torch"')]
        got.append(json.loads(line[-1]) if line else None)
    return got


def main(path, outdir):
    d = json.load(open(path))
    e = d["environment"]
    ms = {m["key"]: m for m in d["measurements"] if m["section"] == "program"}
    der = {x["key"]: x for x in d["derived"] if x["section"] == "program"}
    sides = [e["program_side%d_key" % i] for i in range(1, 9) if "program_side%d_key" % i in e]
    snaps = [s for s in sides if s.endswith("_snapshot") and not s.startswith("bare.")]
    check("the sides: each mode with and without the snapshot", len(snaps) == 2 and
          "lazy" in sides and "eager" in sides, ", ".join(sides))
    for side in sides:
        outs = outputs(outdir, side)
        ok = outs and all(o and o["intact"] for o in outs)
        check("%s: every buffer intact after every run" % side, bool(ok),
              "%d runs; bad: %s" % (len(outs), [o and o["bad"] for o in outs]))
    for side in snaps:
        outs = outputs(outdir, side)
        steps = [ms.get("%s.snapshot.%s" % (side, s), {}).get("samples", []) for s in STEPS]
        n = min([len(outs)] + [len(s) for s in steps])
        check("%s: a figure of each step for each run" % side, n > 0 and n == len(outs), "%d runs" % n)
        for k in range(n):
            total = sum(s[k] for s in steps)
            pause = outs[k]["pause_ms"] if outs[k] else float("nan")
            check("%s, run %d: lock + checkpoint + restore + unlock within 10%% of the program's own "
                  "pause" % (side, k + 1), abs(total - pause) <= 0.1 * pause,
                  "%.1f ms of steps, %.1f ms paused (%.1f%%)" % (total, pause, 100 * total / pause))
        gib = outs[0]["gib"] if outs and outs[0] else 0
        before = ms.get(side + ".snapshot.mem_before", {}).get("samples", [])
        ckpt = ms.get(side + ".snapshot.mem_checkpointed", {}).get("samples", [])
        after = ms.get(side + ".snapshot.mem_after", {}).get("samples", [])
        check("%s: NVML: at least the buffers before, none checkpointed, as much after" % side,
              before and all(b >= gib * 1024 for b in before) and ckpt and max(ckpt) < 1 and
              after and all(abs(a - b) <= 2 for a, b in zip(after, before)),
              "before %s, checkpointed %s, after %s MiB" % (before, ckpt, after))
        names = [x["name"] for k, x in der.items() if k.startswith("ready.%s." % side)]
        for op, rx in OPS.items():
            hit = [nm for nm in names if re.search(rx, nm)]
            check("%s: the first uses after the restore name the request's %s" % (side, op), bool(hit),
                  (hit[0][:80] if hit else "none of %d: %s" % (len(names), "; ".join(nm[:40] for nm in names[:8]))))
    t = der.get("answer.snapshot", {}).get("text", "")
    check("the answer: a restore against the cold start, for each mode",
          t.startswith("LAZY: a restore of ") and " EAGER: a restore of " in t and
          t.count("against a cold start to ready of") == 2, t)
    print(t)
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.stderr.write("usage: snapshot_cmd_checks.py JSON OUTDIR\n")
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
