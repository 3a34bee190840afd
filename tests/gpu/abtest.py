#!/usr/bin/env python3
"""abtest.py: scripts/compare's own error rates, from runs of two builds.

Usage: abtest.py --a A1.json A2.json ... --b B1.json B2.json ... [--c C1.json ...]
                 [--label TEXT]

A is a build as it is, B the same build with kernels slowed on purpose
(tests/gpu/abtest.sh plants them; PLANTED below names them, with the slowdown
the byte model predicts where it holds), C (optional) the control: the build
as it is, reading its kernel sources from an unchanged copy the way B reads
its changed ones (--kernels-dir), so C against B differs in the planted
edits alone. For each verdict rule of scripts/compare it prints:

  A/A   every pair of runs of one build (A with A, B with B): the share of the
        figures compared that were flagged FASTER or SLOWER (false alarms),
        UNCLEAR and HOST; then the same with several runs a side (each set of
        R >= 3 runs split every way into k = R // 2 runs against the other R - k)
  A/C   (with C) every pair of an A run and a C run: the same code, its
        sources read two ways; then A and C together as one build of the
        several-runs splits
  A/B   every pair of an A run and a B run, then all A runs against all B
        runs: how often each planted figure was flagged SLOWER, its measured
        change, how the slowed kernels' other figures went, and the share of
        every other figure flagged (against the A/A share); with C the same
        for C against B

and at the end the lines for the README's table. Exit 0 when it could read
and compare the files; 2 on a usage error or a file it cannot read.
"""

import importlib.util
import itertools
import os
import statistics
import sys
from importlib.machinery import SourceFileLoader

HERE = os.path.dirname(os.path.abspath(__file__))
_loader = SourceFileLoader("compare", os.path.join(HERE, "..", "..", "scripts", "compare"))
cmp = importlib.util.module_from_spec(importlib.util.spec_from_loader("compare", _loader))
_loader.exec_module(cmp)

# The planted slowdowns: the kernel (as its fusion figures name it), what was
# changed, and the figures where the byte model predicts it, with the
# prediction in percent. Its figures at other sizes (the main size, where
# part of the data stays in the L2, and the small sizes, where a launch's
# fixed cost sets the time) are "the slowed kernels' other figures".
PLANTED = (
    ("copy4", "copyFloat4 reads a second float4 per float4 it copies, from the far half of its "
     "input: 12 bytes per element instead of 8", 50.0,
     ("fusion/n=67108864.copy4", "fusion/n=67108864.copy4.cold",
      "fusion/n=268435456.copy4", "fusion/n=268435456.copy4.cold")),
    ("wide4", "fused-wide<4> reads one more float per thread, every fifth warp two: 52.8 bytes "
     "per 4 elements instead of 48", 10.0,
     ("fusion/n=67108864.wide4", "fusion/n=67108864.wide4.cold",
      "fusion/n=268435456.wide4", "fusion/n=268435456.wide4.cold")),
)
RULES = (("noise", "noise (the default)"), ("noise-nohost", "noise-nohost"),
         ("interval", "interval (the earlier rule)"))
FLAGGED = ("FASTER", "SLOWER")


def kernel_of(key):
    """The planted kernel whose figure key is ("fusion/<size>.<kernel>[.cold]"), or None."""
    section, _, rest = key.partition("/")
    tail = rest.partition(".")[2]
    for name, _, _, _ in PLANTED:
        if section == "fusion" and tail in (name, name + ".cold"):
            return name
    return None


class Tally:
    """Verdict counts over several comparisons."""

    def __init__(self):
        self.n = self.flagged = self.unclear = self.host = self.comparisons = 0
        self.worst = 0
        self.names = {}

    def add(self, res, keep=lambda key: True):
        rows = [r for r in res.rows if keep(r.key)]
        flagged = [r for r in rows if r.verdict in FLAGGED]
        self.comparisons += 1
        self.n += len(rows)
        self.flagged += len(flagged)
        self.unclear += sum(r.verdict == "UNCLEAR" for r in rows)
        self.host += sum(r.verdict == "HOST" for r in rows)
        self.worst = max(self.worst, len(flagged))
        for r in flagged:
            self.names[r.key] = self.names.get(r.key, 0) + 1

    def share(self, count):
        return 100.0 * count / self.n if self.n else 0.0

    def line(self):
        per = self.n / self.comparisons if self.comparisons else 0
        return ("%.1f%% flagged FASTER or SLOWER (%d of %d figure verdicts, at most %d in one), "
                "%.1f%% UNCLEAR, %.1f%% HOST; %d comparison%s of %d figures"
                % (self.share(self.flagged), self.flagged, self.n, self.worst,
                   self.share(self.unclear), self.share(self.host), self.comparisons,
                   "" if self.comparisons == 1 else "s", per))

    def most(self, k=4):
        top = sorted(self.names.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
        return ", ".join("%s %dx" % kv for kv in top)

    def show(self, indent, title):
        """Print "<indent><title>: <line>", then the figures flagged most often
        (when any were), two spaces further in."""
        print("%s%s: %s" % (indent, title, self.line()))
        if self.names:
            print("%s  most often: %s" % (indent, self.most()))


def splits(runs):
    """Every split of runs into k = len // 2 against the rest, once each; none
    for fewer than 3 runs (that is one run a side)."""
    k = len(runs) // 2
    out = []
    for pick in itertools.combinations(range(len(runs)), k):
        if len(runs) == 2 * k and 0 not in pick:
            continue               # the same split as its complement's
        rest = [runs[i] for i in range(len(runs)) if i not in pick]
        out.append(([runs[i] for i in pick], rest))
    return out if len(runs) >= 3 else []


def aa(rule, sets):
    """(Tally one run a side, {(k, R - k): Tally of those splits}) over the
    sets of runs (sets of different sizes are kept apart)."""
    one, many = Tally(), {}
    for runs in sets:
        for x, y in itertools.combinations(runs, 2):
            one.add(cmp.Result([x], [y], 0.0, rule))
        if rule != "interval":
            for x, y in splits(runs):
                many.setdefault((len(x), len(y)), Tally()).add(cmp.Result(x, y, 0.0, rule))
    return one, many


def ab(rule, comparisons):
    """Per planted kernel: {target key: [verdict, ...]}, changes, the kernel's
    other figures' Tally; and the Tally of every other figure."""
    targets = {name: {k: [] for k in keys} for name, _, _, keys in PLANTED}
    changes = {name: [] for name, _, _, _ in PLANTED}
    others_k = {name: Tally() for name, _, _, _ in PLANTED}
    rest = Tally()
    for x, y in comparisons:
        res = cmp.Result(x, y, 0.0, rule)
        by = {r.key: r for r in res.rows}
        for name, _, _, keys in PLANTED:
            for k in keys:
                if k in by:
                    targets[name][k].append(by[k].verdict)
                    changes[name].append(by[k].change)
            others_k[name].add(res, lambda key, n=name, ks=keys: kernel_of(key) == n and key not in ks)
        rest.add(res, lambda key: kernel_of(key) is None)
    return targets, changes, others_k, rest


def against(m, n):
    """"1 run against 2", "3 runs against 3"."""
    return "%d run%s against %d" % (m, "" if m == 1 else "s", n)


def report(label, runs_a, runs_b, runs_c=()):
    """Print the experiment; returns the README lines."""
    print("scripts/compare's error rates%s: %d runs of A (the build as it is), %d of B (the same "
          "with the planted slowdowns)%s" % (" (%s)" % label if label else "", len(runs_a), len(runs_b),
                                             ", %d of C (the build as it is, its sources read from "
                                             "an unchanged copy as B reads its own)" % len(runs_c)
                                             if runs_c else ""))
    for name, what, pred, keys in PLANTED:
        print("  planted in B, %s: %s; the byte model predicts +%.0f%% on %s"
              % (name, what, pred, ", ".join(k.split("/", 1)[1] for k in keys)))
    readme = ["| rule | A/A flagged, 1 run a side | A/A UNCLEAR | A/A HOST | A/A flagged, several "
              "runs a side | %s | other figures flagged in A/B: 1 run a side, %s |"
              % (" | ".join("+%.0f%% (%s) SLOWER, 1 run a side" % (p, n) for n, _, p, _ in PLANTED),
                 against(len(runs_a), len(runs_b))) + (" A/C flagged, 1 run a side | other figures "
                                                        "flagged in C/B, 1 run a side |" if runs_c else ""),
              "|---|---|---|---|---|%s---|%s" % ("---|" * len(PLANTED), "---|---|" if runs_c else "")]
    pairs = [([x], [y]) for x in runs_a for y in runs_b]
    scopes = [("one run a side", "A/B", pairs),
              (against(len(runs_a), len(runs_b)), "A/B", [(runs_a, runs_b)])]
    if runs_c:
        scopes += [("one run a side", "C/B", [([x], [y]) for x in runs_c for y in runs_b]),
                   (against(len(runs_c), len(runs_b)), "C/B", [(runs_c, runs_b)])]
    for rule, title in RULES:
        print("\nrule %s" % title)
        one, manys = aa(rule, [runs_a, runs_b] + ([runs_c] if runs_c else []))
        one.show("  ", "A/A, one run a side")
        extra, joined = [], {}
        if runs_c:
            ac = Tally()
            for x in runs_a:
                for y in runs_c:
                    ac.add(cmp.Result([x], [y], 0.0, rule))
            ac.show("  ", "A/C, one run a side (the same code, its sources read two ways)")
            extra.append("%.1f%%" % ac.share(ac.flagged))
            if rule != "interval":
                _, joined = aa(rule, [list(runs_a) + list(runs_c)])
                for size in sorted(joined):
                    joined[size].show("  ", "A and C as one build, " + against(*size))
        for size in sorted(manys):
            manys[size].show("  ", "A/A, " + against(*size))
        several = dict(joined)
        several.update(manys)
        size = max(several) if several else None
        many = several[size] if size else None
        of = "" if size in manys else ", A and C"
        cells = []
        for scope, which, comps in scopes:
            if rule == "interval" and scope != "one run a side":
                continue
            targets, changes, others_k, rest = ab(rule, comps)
            print("  %s, %s (%d comparison%s):" % (which, scope, len(comps), "" if len(comps) == 1 else "s"))
            for name, _, pred, keys in PLANTED:
                got = [v for k in keys for v in targets[name][k]]
                slower = sum(v == "SLOWER" for v in got)
                ch = changes[name]
                print("    %s, +%.0f%% predicted: %d of %d target verdicts SLOWER (%s); measured %s"
                      % (name, pred, slower, len(got),
                         ", ".join("%s %d/%d" % (k.split("/", 1)[1],
                                                 sum(v == "SLOWER" for v in targets[name][k]),
                                                 len(targets[name][k])) for k in keys),
                         "%+.1f%% (median; %+.1f%% to %+.1f%%)" % (statistics.median(ch), min(ch), max(ch))
                         if ch else "nothing"))
                o = others_k[name]
                print("      its other figures (other sizes): %d of %d verdicts flagged%s"
                      % (o.flagged, o.n, ": " + o.most() if o.names else ""))
                if scope == "one run a side" and which == "A/B":
                    cells.append("%d/%d" % (slower, len(got)))
            rest.show("    ", "every other figure (the same code on both sides, so an A/A too)")
            share = "%.1f%%" % rest.share(rest.flagged)
            if which == "C/B":
                if scope == "one run a side":
                    extra.append(share)
            else:
                other = share if scope == "one run a side" else other + ", " + share
        readme.append("| %s | %.1f%% | %.1f%% | %.1f%% | %s | %s | %s |%s"
                      % (rule, one.share(one.flagged), one.share(one.unclear), one.share(one.host),
                         "%.1f%% (%s%s)" % (many.share(many.flagged), against(*size), of)
                         if size and rule != "interval" else "n/a",
                         " | ".join(cells), other if rule != "interval" else other + ", n/a",
                         "".join(" %s |" % e for e in extra)))
    return readme


def main(argv):
    a, b, c, label, where = [], [], [], "", None
    args = iter(argv)
    for arg in args:
        if arg in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        if arg == "--a":
            where = a
        elif arg == "--b":
            where = b
        elif arg == "--c":
            where = c
        elif arg == "--label":
            label = next(args, "")
        elif arg.startswith("-") or where is None:
            print("abtest.py: unexpected %s (usage: abtest.py --a A.json ... --b B.json ...)" % arg,
                  file=sys.stderr)
            return 2
        else:
            where.append(arg)
    if len(a) < 2 or len(b) < 2 or len(c) == 1:
        print("abtest.py: needs at least 2 runs of A and 2 of B, and of C none or 2 (got %d, %d "
              "and %d)" % (len(a), len(b), len(c)), file=sys.stderr)
        return 2
    try:
        runs_a = [cmp.Run(p) for p in a]
        runs_b = [cmp.Run(p) for p in b]
        runs_c = [cmp.Run(p) for p in c]
    except cmp.Bad as e:
        print("abtest.py: %s" % e, file=sys.stderr)
        return 2
    lines = report(label, runs_a, runs_b, runs_c)
    print("\nfor the README (scripts/compare's rules, measured on these runs):")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
