#!/usr/bin/env python3
"""pty_run.py: run a command with its stderr (and with --both its stdout too)
on a pseudo-terminal, as a user's terminal shows them, and print what the
terminal shows: each line as "\\r" (back to the line's start) and ESC [ K
(clear to its end) leave it.

Usage: pty_run.py [--cols=N] [--raw=FILE] [--timing=FILE] [--both] CMD [ARGS...]
Without --both stdout goes to this script's stdout unrendered, after a line
"--- stdout ---". --cols=N makes the terminal N columns wide (its window
size, as TIOCGWINSZ reads it); --raw=FILE keeps the bytes the terminal got
(a recording, "\\r" and escapes as they came); --timing=FILE a line per read
of it, "SECONDS BYTES" (seconds since the start, as script(1)'s timing file
counts them from the last read: here from the start). Exits with CMD's exit code."""

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
import time


def render(text):
    """The lines a terminal shows for text (\\r, ESC [ K and \\n applied)."""
    out = []
    for raw in text.replace("\r\n", "\n").split("\n"):
        line, col, i = [], 0, 0
        while i < len(raw):
            if raw.startswith("\x1b[K", i):
                del line[col:]
                i += 3
                continue
            if raw[i] == "\r":
                col = 0
            else:
                if col < len(line):
                    line[col] = raw[i]
                else:
                    line.append(raw[i])
                col += 1
            i += 1
        out.append("".join(line))
    return out


def main(argv):
    cols = None
    raw = None
    timing = None
    while argv[:1] and argv[0].startswith(("--cols=", "--raw=", "--timing=")):
        if argv[0].startswith("--cols="):
            cols = int(argv[0][len("--cols="):])
        elif argv[0].startswith("--timing="):
            timing = argv[0][len("--timing="):]
        else:
            raw = argv[0][len("--raw="):]
        argv = argv[1:]
    both = argv[:1] == ["--both"]
    cmd = argv[1:] if both else argv
    master, slave = pty.openpty()
    if cols:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stderr=slave,
                         stdout=slave if both else subprocess.PIPE)
    os.close(slave)
    chunks, times, t0 = [], [], time.monotonic()
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
        times.append((time.monotonic() - t0, len(data)))
    out = p.stdout.read() if p.stdout else b""
    rc = p.wait()
    if raw:
        with open(raw, "wb") as f:
            f.write(b"".join(chunks))
    if timing:
        with open(timing, "w") as f:
            f.write("".join("%.3f %d\n" % t for t in times))
    print("\n".join(render(b"".join(chunks).decode(errors="replace"))))
    if not both:
        print("--- stdout ---")
        sys.stdout.write(out.decode(errors="replace"))
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
