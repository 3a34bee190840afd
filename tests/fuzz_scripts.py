#!/usr/bin/env python3
"""fuzz_scripts.py SEED.json [N]: the scripts' reader (scripts/harness_json.py)
and scripts/compare's whole path, in this process, over N (default 400)
mutations of a stored results file: bytes flipped, cut, repeated; control
characters, non-UTF-8 bytes and quotes put in; numbers made huge; a key
repeated; nesting made deep. Each file is compared against the seed and
against itself: compare must return 0 or 2 (a refusal with one line naming
the file), never raise, and what it prints holds no control character but
the newline. A fixed seed: the same mutations every run. Prints PASSED or
FAILED lines (the first few failures with their mutation)."""
import contextlib
import importlib.machinery
import importlib.util
import io
import os
import random
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(os.path.dirname(HERE), "scripts")
sys.path.insert(0, SCRIPTS)


def load_compare():
    loader = importlib.machinery.SourceFileLoader("compare_script", os.path.join(SCRIPTS, "compare"))
    spec = importlib.util.spec_from_loader("compare_script", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def mutate(rng, data):
    """One mutation of data (bytes) and its name."""
    n = len(data)
    kind = rng.randrange(9)
    at = rng.randrange(n)
    if kind == 0:
        return data[:at] + bytes([rng.randrange(256)]) + data[at + 1:], "byte %d changed" % at
    if kind == 1:
        return data[:at], "cut at %d" % at
    if kind == 2:
        return data[:at] + data[at:at + 64] * rng.randrange(2, 50) + data[at + 64:], "repeated at %d" % at
    if kind == 3:
        bad = rng.choice([b"\\u001b[2J", b"\\n", b"\\u009b", b"\x1b", b"\xff\xfe", b"\\ud800", b"\"", b"\\"])
        q = data.find(b'"key": "', at)
        q = q + 8 if q >= 0 else at
        return data[:q] + bad + data[q:], "%r into a key at %d" % (bad, q)
    if kind == 4:
        q = data.find(b'"median": ', at)
        q = q + 10 if q >= 0 else at
        return data[:q] + b"1" + b"0" * rng.choice([20, 400, 5000]) + data[q:], "a huge number at %d" % q
    if kind == 5:
        q = data.find(b'"section": ', at)
        if q < 0:
            return data, "nothing"
        return data[:q] + b'"section": "x", ' + data[q:], "a key repeated at %d" % q
    if kind == 6:
        depth = rng.choice([50, 500, 5000, 100000])
        return data[:at] + b"[" * depth + b"]" * depth + data[at:], "nested %d deep at %d" % (depth, at)
    if kind == 7:
        return data.replace(b"program", b"pro\x1bgram", rng.randrange(1, 5)), "ESC into names"
    return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))), "random bytes"


def main(argv):
    seed = open(argv[1], "rb").read()
    count = int(argv[2]) if len(argv) > 2 else 400
    compare = load_compare()
    rng = random.Random(49)
    ctl = re.compile("[\\x00-\\x09\\x0b-\\x1f\\x7f-\\x9f]")
    bad = []
    with tempfile.TemporaryDirectory() as d:
        a = os.path.join(d, "seed.json")
        with open(a, "wb") as f:
            f.write(seed)
        for i in range(count):
            data, what = mutate(rng, seed)
            b = os.path.join(d, "m%d.json" % i)
            with open(b, "wb") as f:
                f.write(data)
            for pair in ((a, b), (b, b)):
                out, err = io.StringIO(), io.StringIO()
                try:
                    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                        rc = compare.main(list(pair))
                except BaseException as e:      # noqa: B902 (a raise is the failure)
                    bad.append("%s: raised %s: %s" % (what, type(e).__name__, str(e)[:200]))
                    continue
                if rc not in (0, 2):
                    bad.append("%s: exit %r" % (what, rc))
                if rc == 2 and err.getvalue().count("\n") != 1:
                    bad.append("%s: refused in %d lines" % (what, err.getvalue().count("\n")))
                if ctl.search(out.getvalue()) or ctl.search(err.getvalue()):
                    bad.append("%s: a control character printed" % what)
            os.unlink(b)
    for line in bad[:5]:
        print("  " + line)
    print("%s scripts: %d mutations of %s through harness_json and compare: %d failures"
          % ("FAILED" if bad else "PASSED", count, os.path.basename(argv[1]), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
