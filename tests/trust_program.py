#!/usr/bin/env python3
"""A stand-in for a user's program that tests what the harness reads of it
under hostile output and process trees (tests/test_trust.sh). One mode a
run; its state (times, pids) goes to files in $STANDIN_STATE. Standard
library only.

  --flood MIB          MIB of noise lines in large writes, then READY; the
                       clock at READY's write, less HARNESS_PROBE_T0_NS (the
                       spawn on the harness's clock), into ready_ns (probed
                       runs only)
  --tail               noise, then READY with no newline after it; exits
  --after-nul          a line holding a NUL, READY after it on that line
  --boundary           300 KiB of noise, READY, an exit at once
  --long-line MIB      one line of MIB MiB of 'a', no newline; then sleeps
  --setsid N           N children, each in a session of its own, sleep 120
                       (their pids, one a line, into kids)
  --group N            N children in the program's own group, sleep 120
  --reuse PID          pids used again: a child that lives 0.2 s, then
                       one in a session of its own on its pid; then, once
                       PID (a process beside the harness, not of the tree)
                       has ended, one on PID; both sleep 120 (pid forced
                       through ns_last_pid; the two appended to reused, "none"
                       where ns_last_pid cannot be written, "busy" where the
                       pid was not had)
  --stop-holder        SIGSTOP the harness's --squeeze memory holder (a
                       process whose command line holds --child=hold)
  --files N            N empty files in the record directory (HARNESS_PROBE_DIR)
  --du                 the bytes in its stdout file's directory, at its start,
                       the most of any run so far into du
  --sparse GIB         its stdout file made GIB GiB of zeros (a hole), then exits
  --sleep S            sleep S seconds before exiting
"""
import os
import sys
import time


def state(name, value):
    d = os.environ.get("STANDIN_STATE")
    if d:
        with open(os.path.join(d, name + ".tmp"), "w") as f:
            f.write(str(value))
        os.rename(os.path.join(d, name + ".tmp"), os.path.join(d, name))


def write(data):
    view = memoryview(data)
    while view:
        view = view[os.write(1, view):]


def flood(mib):
    line = b"noise " * 20 + b"\n"
    chunk = line * (1024 * 1024 // len(line))
    for _ in range(mib):
        write(chunk)
    t = time.monotonic_ns()
    write(b"READY\n")
    if "HARNESS_PROBE_T0_NS" in os.environ:
        state("ready_ns", t - int(os.environ["HARNESS_PROBE_T0_NS"]))


def kids(n, own_session):
    pids = [os.posix_spawn("/bin/sleep", ["sleep", "120"], os.environ, setsid=own_session)
            for _ in range(n)]
    state("kids", "\n".join(str(p) for p in pids) + "\n")


def forced(pid):
    """A child in a session of its own on pid (ns_last_pid set to the one
    before), sleeping 120: its pid; "none" where ns_last_pid cannot be
    written, "busy" where pid was not had in 20 tries."""
    for _ in range(20):
        try:
            with open("/proc/sys/kernel/ns_last_pid", "w") as f:
                f.write(str(pid - 1))
        except OSError:
            return "none"
        c = os.posix_spawn("/bin/sleep", ["sleep", "120"], os.environ, setsid=True)
        if c == pid:
            return c
        os.kill(c, 9)
        os.waitpid(c, 0)
    return "busy"


def reuse(other):
    first = os.posix_spawn("/bin/sleep", ["sleep", "0.2"], os.environ, setsid=True)
    os.waitpid(first, 0)
    got = [forced(first)]
    t = time.monotonic()
    while os.path.exists("/proc/%d" % other) and time.monotonic() - t < 10:
        time.sleep(0.01)
    got.append(forced(other))
    d = os.environ.get("STANDIN_STATE")
    if d:
        with open(os.path.join(d, "reused"), "a") as f:
            f.write(" ".join(str(p) for p in got) + "\n")


def stop_holder():
    for pid in os.listdir("/proc"):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                words = f.read().split(b"\0")
        except OSError:
            continue
        if b"--child=hold" in words:
            os.kill(int(pid), 19)     # SIGSTOP
            state("holder", pid)


def main(argv):
    opts, i = {}, 1
    while i < len(argv):
        a = argv[i]
        if a in ("--tail", "--after-nul", "--boundary", "--stop-holder", "--du"):
            opts[a[2:]] = True
            i += 1
        else:
            opts[a[2:].replace("-", "_")] = argv[i + 1]
            i += 2
    if opts.get("du"):
        d = os.path.dirname(os.readlink("/proc/self/fd/1"))
        n = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
        old = os.path.join(os.environ.get("STANDIN_STATE", "/"), "du")
        state("du", max(n, int(open(old).read()) if os.path.exists(old) else 0))
    if "flood" in opts:
        flood(int(opts["flood"]))
    if opts.get("tail"):
        write(b"noise\nREADY")
    if opts.get("after-nul"):
        write(b"noise\x00 READY\n")
    if opts.get("boundary"):
        write(b"n" * 65530 + b"\n" + (b"noise\n" * 50000) + b"READY\n")
    if "long_line" in opts:
        write(b"a" * (int(opts["long_line"]) << 20))
        state("written", 1)
    if "setsid" in opts:
        kids(int(opts["setsid"]), True)
    if "group" in opts:
        kids(int(opts["group"]), False)
    if "reuse" in opts:
        reuse(int(opts["reuse"]))
    if "files" in opts and os.environ.get("HARNESS_PROBE_DIR"):
        d = os.environ["HARNESS_PROBE_DIR"]
        for k in range(int(opts["files"])):
            os.close(os.open(os.path.join(d, "f%d" % k), os.O_CREAT | os.O_WRONLY, 0o644))
    if "sparse" in opts:
        os.ftruncate(1, int(opts["sparse"]) << 30)
    if opts.get("stop-holder"):
        stop_holder()
    time.sleep(float(opts.get("sleep") or 0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
