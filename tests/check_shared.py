#!/usr/bin/env python3
# check_shared.py: rows one section takes from measurements the run already
# made (the same work at the same n), read from a harness JSON document.
"""Usage: check_shared.py FILE crossover N [--measured]
       check_shared.py FILE fusion [--measured]

crossover N: section crossover's rows at n = N (cpu, kernel, kernel.cold,
  rt_pageable, rt_pinned, those present) are section stopwatches' rows cpu,
  row4, row4.cold, row5, row5pinned: the same samples bit for bit, state,
  batch, bytes, flops, clock readings, noisy, low_clock_samples, host_only;
  n = N; a region that names section stopwatches; the conclusion
  crossover/shared.n=N names stopwatches and counts the rows.
fusion: section fusion's sweep rows at its main n (the stored sizes.main_n),
  n=<main_n>.<key> and .cold for every version timed in the sweep, are the
  main size's rows main.<key> in the same way, with a region that names
  them; the conclusion fusion/shared.n=<main_n> says so.
--measured: the opposite: the rows are there, timed by the section itself
  (no region names another's samples, no shared.n= conclusion), and where
  the other rows exist their samples differ.

Prints what it compared, one line per problem; exits 1 when there is any."""

import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import harness_json as hj  # noqa: E402  (the one JSON reader)

XO_ROWS = (("cpu", "cpu"), ("kernel", "row4"), ("kernel.cold", "row4.cold"),
           ("rt_pageable", "row5"), ("rt_pinned", "row5pinned"))
SAME = ("state", "unit", "batch", "bytes", "flops", "noisy", "low_clock_samples", "host_only")


def bits(values):
    """The values as their IEEE-754 bits (None, a NaN in the JSON, as None)."""
    return [None if v is None else struct.pack("<d", float(v)) for v in values or []]


def same(a, b):
    """What differs between measurements a and b, beyond names and regions."""
    out = ["samples"] if bits(a.get("samples")) != bits(b.get("samples")) else []
    out += [f for f in SAME if a.get(f) != b.get(f)]
    if bits(a.get("clock_mhz")) != bits(b.get("clock_mhz")):
        out.append("clock_mhz")
    return out


def pairs(run, what, n):
    """(taker's key, its measurement, the words its region names the source
    by, the source measurement)."""
    if what == "crossover":
        return [("n=%d.%s" % (n, x), run.get("crossover", "n=%d.%s" % (n, x)),
                 "the samples of section stopwatches' " + s, run.get("stopwatches", s))
                for x, s in XO_ROWS]
    out = []
    for d in run.conclusions("fusion", "version."):
        if d["fields"].get("sweep") != 1:
            continue
        key = d["key"][len("version."):]
        for suffix in ("", ".cold"):
            k = "n=%d.%s%s" % (n, key, suffix)
            out.append((k, run.get("fusion", k), "the samples of main." + key + suffix + ":",
                        run.get("fusion", "main." + key + suffix)))
    return out


def main(argv):
    if len(argv) < 3 or argv[2] not in ("crossover", "fusion"):
        print(__doc__)
        return 2
    path, what = argv[1], argv[2]
    measured = "--measured" in argv[3:]
    run = hj.load(path)
    if what == "crossover":
        if len(argv) < 4 or not argv[3].isdigit():
            print(__doc__)
            return 2
        n = int(argv[3])
    else:
        n = int(run.value("fusion", "sizes", "main_n") or 0)
    problems, seen = [], 0
    for key, m, words, src in pairs(run, what, n):
        src_key = "%s/%s" % (src["section"], src["key"]) if src else words
        if m is None:
            if src is not None and not measured:
                problems.append("%s/%s missing beside %s" % (what, key, src_key))
            continue
        seen += 1
        if measured:
            if "the samples of" in m["region"]:
                problems.append("%s/%s: its region names another's samples: %s" % (what, key, m["region"]))
            if src is not None and bits(src["samples"]) == bits(m["samples"]):
                problems.append("%s/%s: the samples of %s, not timed again" % (what, key, src_key))
            continue
        if src is None:
            problems.append("%s/%s: nothing to share (%s)" % (what, key, words))
            continue
        diff = same(m, src)
        if diff:
            problems.append("%s/%s differs from %s in %s" % (what, key, src_key, ", ".join(diff)))
        if words not in m["region"]:
            problems.append("%s/%s: its region does not say '%s': %s" % (what, key, words, m["region"]))
        if m.get("n") != n:
            problems.append("%s/%s: n is %s, not %d" % (what, key, m.get("n"), n))
    d = run.conclusion(what, "shared.n=%d" % n)
    if measured and d is not None:
        problems.append("%s/shared.n=%d is stored: %s" % (what, n, d["name"]))
    if not measured:
        want = "stopwatches" if what == "crossover" else "main"
        if d is None:
            problems.append("no %s/shared.n=%d" % (what, n))
        elif d["text"] != want or d["fields"].get("rows") != seen or d["fields"].get("n") != n:
            problems.append("%s/shared.n=%d: text %r, rows %s, n %s (want %r, %d, %d)"
                            % (what, n, d["text"], d["fields"].get("rows"), d["fields"].get("n"),
                               want, seen, n))
    if seen == 0:
        problems.append("no %s rows at n = %d" % (what, n))
    print("%s at n = %d: %d rows %s" % (what, n, seen, "timed there" if measured else "shared"))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except hj.Bad as e:
        print(e)
        sys.exit(1)
