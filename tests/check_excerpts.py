#!/usr/bin/env python3
"""check_excerpts.py: a page's excerpts of stored runs against the runs.

Usage: check_excerpts.py PAGE.md [ROOT]

Every fenced block of PAGE whose paragraph just above it names a stored run
(a link or a path results/NAME.txt) is an excerpt of that file: each of its
lines but "..." (a cut) and "$ ..." (the command) must be a line of the file,
trailing spaces aside, and in the file's order. Prints one PASSED or FAILED
line per excerpt (FAILED names the first line not found); exits 1 when one
failed, 2 when the page names no excerpt at all."""
import os
import re
import sys


def excerpts(text):
    """(file, first line number, lines) of each fenced block whose preceding
    paragraph names results/NAME.txt (the last one named)."""
    lines = text.split("\n")
    out, i, pending = [], 0, None
    while i < len(lines):
        if lines[i].startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            k, para = i - 1, []
            while k >= 0 and not lines[k].strip():
                k -= 1
            while k >= 0 and lines[k].strip() and not lines[k].startswith("```"):
                para.insert(0, lines[k])
                k -= 1
            names = re.findall(r"results/([A-Za-z0-9_.-]+\.txt)", " ".join(para))
            # A command's block (```sh) hands the paragraph's run to the
            # block right after it, its output.
            name = names[-1] if names else (pending if not para else None)
            pending = None
            if lines[i].startswith("```sh"):
                pending = name
            elif name:
                out.append((name, i + 2, lines[i + 1:j]))
            i = j + 1
        else:
            i += 1
    return out


def main(argv):
    if not argv:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    page = argv[0]
    root = argv[1] if len(argv) > 1 else "."
    found = excerpts(open(page).read())
    if not found:
        print("FAILED %s: no excerpt of a stored run" % page)
        return 2
    bad = 0
    for name, at, block in found:
        path = os.path.join(root, "results", name)
        try:
            run = [l.rstrip() for l in open(path).read().split("\n")]
        except OSError as e:
            print("FAILED %s:%d: results/%s: %s" % (page, at, name, e.strerror))
            bad += 1
            continue
        pos, missing = 0, None
        for n, line in enumerate(block):
            if line.strip() in ("...", "") or line.startswith("$ "):
                continue
            try:
                pos = run.index(line.rstrip(), pos) + 1
            except ValueError:
                missing = (at + n, line)
                break
        if missing:
            print("FAILED %s:%d: excerpt of results/%s: line %d not in it, in order: %r"
                  % (page, at, name, missing[0], missing[1][:80]))
            bad += 1
        else:
            print("PASSED %s:%d: the excerpt of results/%s is in it, line by line" % (page, at, name))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
