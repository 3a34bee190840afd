#!/usr/bin/env python3
"""progress_checks.py NAME RAW TIMING SCREEN COLS [--width-only]: a recording of a run on a
pseudo-terminal (tests/pty_run.py --both --raw=RAW --timing=TIMING, what
the terminal showed in SCREEN) checked as issue "the report in a terminal"
asks, one PASSED/FAILED line a check:
  - no line of what the terminal shows at the end is wider than COLS;
  - the progress line was drawn and cleared: rounds done of the most, runs
    done of the most, an estimate, the side running now, and nothing of it
    left on the screen;
  - no child line: every line drawn over between the first progress line
    and its clearing is the parent's progress line;
  - the estimate: at the first progress line drawn at or past half the
    time from the runs' start (the line's own clock) to their end (the
    clear after the last progress line), the time it says is left, added
    to when it was drawn, within 30% of the runs' length of their real end.
--width-only: the first check alone (a run that compares nothing draws no
progress). Prints the samples it read (time drawn, elapsed, runs done, estimate)."""

import re
import sys

# The progress line, long or short (src/os/progress.h): its groups are the
# elapsed time, what runs, runs done, the most, round, the most, the time
# left (None before the first run ends), the side now.
LINE = re.compile(r"\[\s*([0-9.]+) s\] (.+?): (?:(\d+) of at most (\d+) runs done, "
                  r"round (\d+) of at most (\d+)|runs (\d+)/(\d+), round (\d+)/(\d+))"
                  r"(?:; at most (.+?) left)?; now (.+)$")


def fields(m):
    """A progress line's match as (elapsed, runs done, most, round, most, left, side)."""
    g = m.groups()
    nums = g[2:6] if g[2] is not None else g[6:10]
    return (g[0],) + nums + (g[10], g[11])


def out(ok, what):
    print("%s %s" % ("PASSED" if ok else "FAILED", what))
    return ok


def seconds(text):
    """'2 min 10 s', '45 s', '1 h 3 min' in seconds."""
    s = 0.0
    for n, unit in re.findall(r"(\d+) (h|min|s)\b", text):
        s += float(n) * {"h": 3600, "min": 60, "s": 1}[unit]
    return s


def drawn(raw, timing):
    """Each piece the terminal drew after a clear ("\\r ESC[K"), with the
    time of the read that brought its end."""
    ends, pos = [], 0
    for line in open(timing):
        t, n = line.split()
        pos += int(n)
        ends.append((pos, float(t)))
    pieces, k = [], 0
    for m in re.finditer(rb"\r\x1b\[K([^\r\n]*)", raw):
        while k < len(ends) - 1 and ends[k][0] < m.end():
            k += 1
        pieces.append((ends[k][1] if ends else 0.0, m.group(1).decode(errors="replace")))
    return pieces


def main(argv):
    name, raw_path, timing, screen, cols = argv[1], argv[2], argv[3], argv[4], int(argv[5])
    raw = open(raw_path, "rb").read()
    shown = open(screen, errors="replace").read().split("\n")
    widest = max((len(x) for x in shown), default=0)
    ok = out(widest <= cols, "%s: no line wider than %d columns on the terminal (widest %d, %d lines)"
             % (name, cols, widest, len(shown)))
    if argv[6:] == ["--width-only"]:
        return 0 if ok else 1
    pieces = drawn(raw, timing)
    samples = [(t, fields(LINE.search(p)) if LINE.search(p) else None) for t, p in pieces]
    first = next((i for i, (_, m) in enumerate(samples) if m), None)
    last = max((i for i, (_, m) in enumerate(samples) if m), default=None)
    if first is None:
        return 0 if out(False, "%s: a progress line was drawn" % name) else 1
    ok &= out(not any(LINE.search(x) for x in shown),
              "%s: the progress line cleared, none left on the screen" % name)
    m = samples[last][1]
    ok &= out(all(samples[i][1][5] for i in range(first, last + 1) if samples[i][1] and int(samples[i][1][1]) > 0),
              "%s: %d progress lines, each with rounds (%s of at most %s), runs (%s of at most %s) "
              "and, once a run was done, an estimate; now %s"
              % (name, sum(1 for _, x in samples if x), m[3], m[4], m[1], m[2], m[6]))
    others = [p for _, p in pieces[first:last + 1] if p.strip() and not LINE.search(p)]
    ok &= out(not others, "%s: no child line over the parent's (%d other: %s)"
              % (name, len(others), "; ".join(others[:3])))
    # The runs' start: the progress line's own clock; their end: the clear
    # that follows the last progress line (pl_end), else the last read.
    t_last, mm = samples[last]
    start = t_last - float(mm[0])
    end = next((t for t, p in pieces[last + 1:] if not p.strip()), None)
    if end is None:
        end = float(open(timing).read().split()[-2])
    length = end - start
    half = next((i for i in range(first, last + 1)
                 if samples[i][1] and samples[i][0] - start >= length / 2 and samples[i][1][5]), None)
    for t, x in samples:
        if x:
            print("  drawn at %.1f s: [%s s] %s of %s runs done, %s" %
                  (t - start, x[0], x[1], x[2], "at most %s left" % x[5] if x[5] else "no estimate"))
    if half is None:
        ok &= out(False, "%s: a progress line with an estimate at half-way (runs %.1f s)" % (name, length))
    else:
        t, x = samples[half]
        said = t + seconds(x[5])
        err = abs(said - end) / length
        ok &= out(err <= 0.30, "%s: at half-way (%.1f of %.1f s) the estimate said the end at %.1f s, "
                  "the real end %.1f s: %.0f%% of the runs' length off (30%% allowed)"
                  % (name, t - start, length, said - start, end - start, 100 * err))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
