#!/usr/bin/env python3
"""check_visible.py FILE --n N --counts 1,2,4 --rounds R [--init-us U] [--saving]:
section visible's figures in a harness JSON file against what the stand-in
driver (tests/fakecuda) makes of FAKE_CUDA_INIT_US=U: cuInit waits U us per
visible device, each primary context's first retain U us.

Checks: the "devices" entry says N; each count's figures are there (the
contexts on the others only where k > 1), R samples each, and each child
counted k; no other count is measured. With --init-us: cuInit's median at
least 0.8 of U k and below 2 U k + 100 ms, growing from count to count;
the context on device 0 at least 0.8 U; the others at least 0.8 U (k - 1),
and per extra device at least 0.8 U. With --saving: the saving entries are
there (saving: the totals; saving_one_gpu: the cold start to context 0),
positive, each the difference of the two medians its fields hold, with N. One line per
problem, exit 1 when there is any; else "ok: ..." and exit 0."""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import harness_json as hj  # noqa: E402  (the one JSON reader)

VI = "visible"
FIGURES = ("load", "init", "count", "ctx0", "ready", "total", "devices")


def check_counts(r, n, counts, rounds, problems):
    """Each count's figures, their samples and the count each child saw."""
    for k in counts:
        for fig in FIGURES + (("ctx_others",) if k > 1 else ()):
            m = r.get(VI, "k%d.%s" % (k, fig))
            if m is None:
                problems.append("k%d.%s missing" % (k, fig))
            elif len(m.get("samples", [])) != rounds or m.get("state") != "process":
                problems.append("k%d.%s: %d samples in state %s, expected %d in process"
                                % (k, fig, len(m.get("samples", [])), m.get("state"), rounds))
        dev = r.get(VI, "k%d.devices" % k)
        if dev and any(v != k for v in dev["samples"]):
            problems.append("k%d: the children counted %s" % (k, dev["samples"]))
        if k == 1 and r.get(VI, "k1.ctx_others"):
            problems.append("k1.ctx_others is there: one device has no others")
    others = sorted({key.split(".")[0] for key in r.keys(VI, "k")} - {"k%d" % k for k in counts})
    if others:
        problems.append("counts measured beyond the plan: %s" % others)
    if r.value(VI, "devices") != n or r.value(VI, "devices", "n") != n:
        problems.append("the devices entry says %s, not %d" % (r.value(VI, "devices"), n))


def check_times(r, counts, us, problems):
    """cuInit and the contexts against U per device."""
    u = us / 1000.0
    last = None
    for k in counts:
        init, ctx0 = r.med(VI, "k%d.init" % k), r.med(VI, "k%d.ctx0" % k)
        if init is None or ctx0 is None:
            continue
        if not 0.8 * u * k <= init < 2 * u * k + 100:
            problems.append("k%d: cuInit %.3f ms, expected about %.1f" % (k, init, u * k))
        if last is not None and init <= last:
            problems.append("k%d: cuInit %.3f ms does not grow from %.3f" % (k, init, last))
        last = init
        if ctx0 < 0.8 * u:
            problems.append("k%d: context 0 %.3f ms, expected about %.1f" % (k, ctx0, u))
        others = r.med(VI, "k%d.ctx_others" % k)
        if k > 1 and (others is None or others < 0.8 * u * (k - 1)):
            problems.append("k%d: the others %s ms, expected about %.1f" % (k, others, u * (k - 1)))
        per = r.value(VI, "k%d.per_device" % k)
        if k > 1 and (per is None or per < 0.8 * u):
            problems.append("k%d: per extra device %s ms, expected about %.1f" % (k, per, u))


def check_saving(r, n, problems):
    """Both savings: positive, each the difference of its figure's medians."""
    for key, fig in (("saving", "total"), ("saving_one_gpu", "ready")):
        d = r.conclusion(VI, key)
        one, all_ = r.med(VI, "k1.%s" % fig), r.med(VI, "k%d.%s" % (n, fig))
        if d is None:
            problems.append("no %s entry" % key)
        elif not hj.num_ok(d.get("value")) or d["value"] <= 0:
            problems.append("%s is %s, not positive" % (key, d.get("value")))
        elif d["fields"].get(fig + "_1") != one or d["fields"].get(fig + "_n") != all_ \
                or d["fields"].get("n") != n or abs(d["value"] - (all_ - one)) > 1e-9:
            problems.append("%s %s does not rest on %s(1) %s and %s(%d) %s"
                            % (key, d["value"], fig, one, fig, n, all_))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--counts", required=True)
    ap.add_argument("--rounds", type=int, required=True)
    ap.add_argument("--init-us", type=float)
    ap.add_argument("--saving", action="store_true")
    a = ap.parse_args()
    try:
        r = hj.load(a.file)
    except hj.Bad as e:
        print(e)
        return 1
    counts = [int(x) for x in a.counts.split(",")]
    problems = []
    check_counts(r, a.n, counts, a.rounds, problems)
    if a.init_us:
        check_times(r, counts, a.init_us, problems)
    if a.saving:
        check_saving(r, a.n, problems)
    for p in problems:
        print(p)
    if problems:
        return 1
    print("ok: N = %d, counts %s, %d rounds" % (a.n, a.counts, a.rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
