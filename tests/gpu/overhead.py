#!/usr/bin/env python3
"""overhead.py: the runs of tests/gpu/overhead.sh, timed and tabled.

overhead.py --runs N --warmup W --out DIR [--probe SO --cupti SO] [--probe-old SO]
            [--tracer SO] [--nsys NSYS] --program NAME=CMD ... (CMD split on spaces)

Each program is run N times under each variant, the variants alternating
(rotated by one each round so that none always runs first), after W
unmeasured runs of each: bare (no injection), probe (the harness's probe,
as ./harness -- CMD runs it), probe-old (another build of the probe, to
weigh a change of it against the probe before), activity (tests/gpu/activity_tracer.c: CUPTI's
activity API for kernels, copies, sets, runtime and driver API, buffers
written to a file) and nsys (nsys profile --trace=cuda; its wall time
includes nsys's own start and its writing of the report). Wall time runs
from the spawn to the exit (time.monotonic_ns around the whole command); a
program that prints a JSON line with t_start_ns and t_end_ns (app_torch.py)
also gives its own span, which leaves out the tool's start and end.
Writes DIR/overhead.csv (every run), DIR/overhead.txt (per program and
variant: runs that exited 0, median wall and its spread [min, max] and
interquartile range, the median's difference from bare, the program's own
span, the bytes the tool wrote) and DIR/overhead-<program>-<variant>.err
(the last 4,000 bytes of the first measured run's stderr: what nsys or
CUPTI said).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time


def quantile(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    pos = (len(xs) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def dir_bytes(d):
    total = 0
    for root, _, files in os.walk(d):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    return total


def inner_ms(stdout):
    for line in stdout.splitlines():
        line = line.strip()
        if line.startswith("{") and "t_end_ns" in line:
            try:
                d = json.loads(line)
                return (d["t_end_ns"] - d["t_start_ns"]) / 1e6
            except (ValueError, KeyError, TypeError):
                return None
    return None


def one_run(args, variant, cmd, scratch):
    env = dict(os.environ)
    env.pop("CUDA_INJECTION64_PATH", None)
    argv = list(cmd)
    if variant in ("probe", "probe-old"):
        env["CUDA_INJECTION64_PATH"] = args.probe if variant == "probe" else args.probe_old
        env["HARNESS_PROBE_DIR"] = scratch
        if args.cupti:
            env["HARNESS_PROBE_CUPTI"] = args.cupti
    elif variant == "activity":
        env["CUDA_INJECTION64_PATH"] = args.tracer
        env["ACTIVITY_TRACE_DIR"] = scratch
    elif variant == "nsys":
        argv = [args.nsys, "profile", "--trace=cuda", "-o", os.path.join(scratch, "report")] + argv
    # The output to files, not pipes: nsys leaves an agent of its own that
    # would hold a pipe open long after the program ended.
    logs = tempfile.mkdtemp(prefix="overhead-log-")
    try:
        with open(os.path.join(logs, "out"), "wb") as o, open(os.path.join(logs, "err"), "wb") as e:
            t0 = time.monotonic_ns()
            if variant in ("probe", "probe-old"):
                env["HARNESS_PROBE_T0_NS"] = str(t0)
            # A session of its own, so that a timeout ends all of it; not
            # for nsys profile, which then never ends (2022.4, seen here).
            own = variant != "nsys"
            p = subprocess.Popen(argv, env=env, stdout=o, stderr=e, start_new_session=own)
            # A blocking wait, the timeout kept by a timer: Popen.wait with
            # a timeout polls with sleeps of up to 50 ms, and the wall
            # times it gave came in steps of 50 ms (seen on the H200).
            expired = []

            def expire():
                expired.append(1)
                try:
                    if own:
                        os.killpg(p.pid, 9)
                    else:
                        p.kill()
                except OSError:
                    pass
            timer = threading.Timer(args.timeout, expire)
            timer.start()
            rc = p.wait()
            t1 = time.monotonic_ns()
            timer.cancel()
            if expired:
                rc = -1
        if variant == "nsys":
            end_nsys_agent(p.pid)
        out = open(os.path.join(logs, "out"), "rb").read().decode(errors="replace")
        err = open(os.path.join(logs, "err"), "rb").read().decode(errors="replace")
    finally:
        shutil.rmtree(logs, ignore_errors=True)
    return rc, (t1 - t0) / 1e6 if rc != -1 else float("nan"), inner_ms(out), \
        dir_bytes(scratch), err[-4000:]


def nsys_agents(pid):
    """The agents nsys profile (process pid) started for its session
    ("--start-agent --session-name=profile-<command>-<pid>"), by id."""
    tail = ("-%d" % pid).encode()
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            args = open("/proc/%s/cmdline" % d, "rb").read().split(b"\0")
        except OSError:
            continue
        if b"--start-agent" in args and any(a.startswith(b"--session-name=profile-") and
                                            a.endswith(tail) for a in args):
            found.append(int(d))
    return found


def end_nsys_agent(pid):
    """The agent of nsys profile's session may stay after nsys exits (seen
    with 2022.4 on a machine without a GPU, spinning): given 5 s to end,
    then SIGKILL (it ignores SIGTERM), by its id, and the shared memory it
    leaves (/dev/shm/quadd-agent-instance-<id>; a later nsys that finds it
    waits on it) removed."""
    deadline = time.monotonic() + 5
    agents = nsys_agents(pid)
    while agents and time.monotonic() < deadline:
        time.sleep(0.1)
        agents = nsys_agents(pid)
    for a in agents:
        try:
            os.kill(a, 9)
        except OSError:
            pass
        time.sleep(0.2)
        try:
            os.unlink("/dev/shm/quadd-agent-instance-%d" % a)
        except OSError:
            pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--out", required=True)
    ap.add_argument("--probe")
    ap.add_argument("--probe-old")
    ap.add_argument("--cupti")
    ap.add_argument("--tracer")
    ap.add_argument("--nsys")
    ap.add_argument("--timeout", type=float, default=float(os.environ.get("OVERHEAD_TIMEOUT", "300")))
    ap.add_argument("--program", action="append", default=[])
    args = ap.parse_args()
    variants = ["bare"] + [v for v, x in (("probe", args.probe), ("probe-old", args.probe_old),
                                          ("activity", args.tracer), ("nsys", args.nsys)) if x]
    programs = []
    for p in args.program:
        name, _, cmd = p.partition("=")
        programs.append((name, cmd.split()))
    os.makedirs(args.out, exist_ok=True)
    rows = []
    csv = open(os.path.join(args.out, "overhead.csv"), "w")
    csv.write("program,variant,round,exit,wall_ms,own_ms,bytes_written\n")
    for name, cmd in programs:
        for rnd in range(-args.warmup, args.runs):
            k = rnd % len(variants)
            for variant in variants[k:] + variants[:k]:
                scratch = tempfile.mkdtemp(prefix="overhead-")
                try:
                    rc, wall, own, nbytes, err = one_run(args, variant, cmd, scratch)
                finally:
                    shutil.rmtree(scratch, ignore_errors=True)
                if rnd < 0:
                    continue
                if rnd == 0:
                    # The first measured run's stderr of each variant (what nsys
                    # or CUPTI said), kept whatever became of it.
                    with open(os.path.join(args.out, "overhead-%s-%s.err" % (name, variant)),
                              "w") as f:
                        f.write(err)
                csv.write("%s,%s,%d,%d,%.3f,%s,%d\n" % (name, variant, rnd + 1, rc, wall,
                                                        "" if own is None else "%.3f" % own, nbytes))
                csv.flush()
                rows.append((name, variant, rc, wall, own, nbytes, err))
                if rc == -1:
                    print("overhead: %s under %s, round %d: killed after %.0f s (%s)" % (
                        name, variant, rnd + 1, args.timeout,
                        "the program had ended: its own span %.1f ms" % own if own is not None
                        else "no line from the program"), file=sys.stderr)
                elif rc != 0:
                    print("overhead: %s under %s, round %d: exit %d: %s" % (name, variant, rnd + 1, rc,
                                                                           err.strip()[-300:]),
                          file=sys.stderr)
    csv.close()
    lines = ["# overhead.py: %d runs of each program under each variant (after %d unmeasured), "
             "alternating; wall: spawn to exit, ms; own: the program's own span (t_start_ns to "
             "t_end_ns of its JSON line), ms" % (args.runs, args.warmup),
             "%-8s %-9s %5s %10s %21s %9s %19s %10s %12s" % (
                 "program", "variant", "ok", "wall med", "[min, max]", "IQR", "vs bare",
                 "own med", "written KiB")]
    for name, _ in programs:
        base = None
        for variant in variants:
            ok = [r for r in rows if r[0] == name and r[1] == variant and r[2] == 0]
            n = len([r for r in rows if r[0] == name and r[1] == variant])
            walls = [r[3] for r in ok]
            owns = [r[4] for r in ok if r[4] is not None]
            med = statistics.median(walls) if walls else float("nan")
            if variant == "bare":
                base = med
            vs = "" if variant == "bare" or base is None or not walls else \
                "%+.0f (%+.1f%%)" % (med - base, (med - base) / base * 100)
            lines.append("%-8s %-9s %2d/%-2d %10.1f %21s %9.1f %19s %10s %12.0f" % (
                name, variant, len(ok), n, med,
                "[%.1f, %.1f]" % (min(walls), max(walls)) if walls else "-",
                quantile(walls, 0.75) - quantile(walls, 0.25) if walls else float("nan"), vs,
                "%.1f" % statistics.median(owns) if owns else "-",
                statistics.median([r[5] for r in ok]) / 1024 if ok else 0))
    for name, _ in programs:
        for variant in variants:
            killed = [r for r in rows if r[0] == name and r[1] == variant and r[2] == -1]
            owns = [r[4] for r in killed if r[4] is not None]
            if killed:
                lines.append("%s under %s: %d run%s killed after %.0f s; the program had ended in %d "
                             "(its own span %s)" % (
                                 name, variant, len(killed), "" if len(killed) == 1 else "s",
                                 args.timeout, len(owns),
                                 "%.1f-%.1f ms" % (min(owns), max(owns)) if owns else "-"))
    text = "\n".join(lines) + "\n"
    open(os.path.join(args.out, "overhead.txt"), "w").write(text)
    sys.stdout.write(text)
    return 0 if rows and all(r[2] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
