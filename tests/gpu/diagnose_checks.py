#!/usr/bin/env python3
"""diagnose_checks.py RESULTS DEV [CASE]: the checks of tests/gpu/diagnose.sh
(of CASE alone: flag, hang, bound, oom, segv) on its stored runs (RESULTS/DEV-diagnose-*.json, the programs' outputs under
build/out-*). One line a check, PASSED or FAILED; exits 1 on a failure."""
import json
import os
import re
import sys

failed = 0


def check(what, ok, detail=""):
    global failed
    print("%s diagnose: %s%s" % ("PASSED" if ok else "FAILED", what, (": " + detail) if detail else ""))
    failed += not ok


def load(res, dev, name):
    try:
        with open(os.path.join(res, "%s-diagnose-%s.json" % (dev, name))) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        check("%s: its JSON" % name, False, str(e))
        return None


def derived(d, prefix):
    return [x for x in d["derived"] if x["section"] == "program" and x["key"].startswith(prefix)]


def answer(d, key):
    r = [x for x in d["derived"] if x["section"] == "program" and x["key"] == key]
    return r[0]["text"] if r else ""


def flag(res, dev):
    d = load(res, dev, "flag")
    if not d:
        return
    a = answer(d, "answer.failed")
    n = int(os.environ.get("DIAG_ROUNDS", "2"))
    check("flag: the headline says LAZY failed in every run, EAGER ran in every run",
          "LAZY failed in %d of %d runs (exited with 5" % (n, n) in a and "EAGER ran in %d of %d" % (n, n) in a, a)
    diags = derived(d, "diagnosis.lazy.")
    check("flag: a diagnosis for each failed LAZY run", len(diags) == n, "%d" % len(diags))
    for x in diags:
        run = int(x["fields"]["run"])
        out = os.path.join("build/out-flag", "run%02d-lazy.out" % run)
        spin = None
        try:
            m = re.search(r'"spin_s": ([0-9.]+)', open(out).read())
            spin = float(m.group(1)) if m else None
        except OSError:
            pass
        w = x["fields"].get("wait_ms")
        ok = ("setter" in x["text"] and "while spinner ran" in x["text"] and spin is not None and
              w is not None and abs(w / 1e3 - spin) <= 0.10 * spin)
        check("flag: run %d names setter waiting while spinner ran, the wait within 10%% of the "
              "program's clock" % run, ok, "wait %s ms, spin_s %s: %s" % (w, spin, x["text"][:200]))


def hang(res, dev):
    d = load(res, dev, "hang")
    if not d:
        return
    diags = derived(d, "diagnosis.lazy.")
    t = diags[0]["text"] if diags else ""
    check("hang: the LAZY run killed at --child-timeout, named as a hang",
          bool(diags) and diags[0]["fields"].get("timed_out") == 1 and "a hang at the time limit" in t, t)
    check("hang: the thread and the call it was inside at the kill",
          re.search(r"thread \d+ \(pid \d+\) inside cu[A-Za-z_0-9]+ for [0-9.]+ s", t) is not None, t)
    check("hang: the kernel in flight", "in flight: spinner" in t or "spinner on stream" in t, t)


def bound(res, dev):
    d = load(res, dev, "bound")
    if not d:
        return
    diags = derived(d, "diagnosis.lazy.")
    t = diags[0]["text"] if diags else ""
    check("bound: LAZY's run killed at the default bound after EAGER's ran",
          bool(diags) and diags[0]["fields"].get("bounded") == 1 and 29 <= diags[0]["value"] / 1e3 <= 40,
          "%s" % [(x["value"], x["fields"]) for x in diags])
    a = answer(d, "answer.failed")
    check("bound: the answer says the default bound", "default bound of 30 s" in a, a)


def oom(res, dev):
    d = load(res, dev, "oom")
    if not d:
        return
    diags = derived(d, "diagnosis.lazy.")
    t = diags[0]["text"] if diags else ""
    check("oom: the failed call, its result, the kernel, the caller and the free memory named",
          "a failure inside a CUDA call" in t and "OUT_OF_MEMORY" in t and "touch_big" in t and
          "MiB of device memory free" in t and "called by" in t, t)


def segv(res, dev):
    d = load(res, dev, "segv")
    if not d:
        return
    diags = derived(d, "diagnosis.lazy.") + derived(d, "diagnosis.eager.")
    t = diags[0]["text"] if diags else ""
    check("segv: killed by SIGSEGV, its last CUDA call named",
          "a crash by signal 11" in t and re.search(r"cu[A-Za-z_0-9]+ returned CUDA_SUCCESS", t) is not None, t)


def main():
    res, dev = sys.argv[1], sys.argv[2]
    for f in (flag, hang, bound, oom, segv):
        if len(sys.argv) < 4 or sys.argv[3] == f.__name__:
            f(res, dev)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
