#!/usr/bin/env python3
"""room_checks.py DIR TAG...: runs of an older tree (tags starting with b or
tb) against runs of a newer one (a, ta): the JSON keys and the text apart
from figures. Each TAG names DIR/TAG.json and DIR/TAG.out. Pairs of the same
tree are the A/A control: a difference between the trees counts only where
it is not also between two runs of one tree. Prints PASSED/FAILED lines."""
import difflib
import json
import re
import sys


def keys(doc):
    """The JSON's key sets: measurements, derived, environment, checks."""
    return {
        "measurements": {(m["section"], m["key"]) for m in doc.get("measurements", [])},
        "derived": {(m.get("section", ""), m["key"]) for m in doc.get("derived", [])},
        "environment": set(doc.get("environment", {})),
        "checks": {c.get("name", "") for c in doc.get("checks", [])},
    }


NUM = re.compile(r"[-+]?\d[\d,]*(\.\d+)?(e[-+]?\d+)?")


def text(path):
    """The stdout with every figure a '#' and runs of spaces one space."""
    out = []
    for line in open(path, errors="replace"):
        line = NUM.sub("#", line.rstrip("\n"))
        line = re.sub(r"\s*#\s*", "#", line)
        line = re.sub(r"#([-x/±,]+#)+", "#", line)
        out.append(re.sub(r"\s+", " ", line).strip())
    return [x for x in out if x]


def labels(lines):
    """Each line up to its first figure: a table's row names, a sentence's
    opening; what a figure's value cannot change."""
    return [x.split("#")[0].strip() for x in lines]


def diff(a, b):
    return [d for d in difflib.unified_diff(a, b, lineterm="", n=0)
            if d[:1] in "+-" and not d.startswith(("+++", "---"))]


def main(argv):
    d, tags = argv[1], argv[2:]
    before = [t for t in tags if t.lstrip("t").startswith("b")]
    after = [t for t in tags if t.lstrip("t").startswith("a")]
    docs = {t: json.load(open("%s/%s.json" % (d, t))) for t in tags}
    texts = {t: text("%s/%s.out" % (d, t)) for t in tags}
    aa = [(x, y) for grp in (before, after) for i, x in enumerate(grp) for y in grp[i + 1:]]
    ab = [(x, y) for x in before for y in after]
    noise_keys = {part: set() for part in keys(docs[tags[0]])}
    noise_text, noise_labels = set(), set()
    for x, y in aa:
        kx, ky = keys(docs[x]), keys(docs[y])
        for part in kx:
            noise_keys[part] |= kx[part] ^ ky[part]
        noise_text |= set(diff(texts[x], texts[y]))
        noise_labels |= set(diff(labels(texts[x]), labels(texts[y])))
    failed = 0
    for x, y in ab:
        kx, ky = keys(docs[x]), keys(docs[y])
        for part in kx:
            only = (kx[part] ^ ky[part]) - noise_keys[part]
            print("%s %s keys %s/%s: %d and %d, differing beyond A/A: %s"
                  % ("PASSED" if not only else "FAILED", part, x, y, len(kx[part]),
                     len(ky[part]), sorted(only)[:20]))
            failed += bool(only)
        ld = [t for t in diff(labels(texts[x]), labels(texts[y])) if t not in noise_labels]
        print("%s text %s/%s, each line up to its first figure: %d and %d lines, %d differ beyond A/A"
              % ("PASSED" if not ld else "FAILED", x, y, len(texts[x]), len(texts[y]), len(ld)))
        failed += bool(ld)
        td = [t for t in diff(texts[x], texts[y]) if t not in noise_text]
        print("  whole lines, figures as #: %d differ beyond A/A (verdicts and marks move with the"
              " figures: read them)" % len(td))
        for t in (ld + td)[:60]:
            print("    " + t)
    print("A/A pairs %s: %d key and %d text differences between runs of one tree"
          % (aa, sum(len(v) for v in noise_keys.values()), len(noise_text)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
