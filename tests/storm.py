#!/usr/bin/env python3
"""storm.py PLAN [--delays N] [--jobs J] [--duration S] [--only LIST]: SIGINT and
SIGTERM at many moments of harness runs, and what each run leaves behind.

Plans:
  ci   the CPU storm (make test): each section on the stand-in driver
       ($FAKECUDA) and section jit's NVRTC part with no driver, signals spread
       over each run; a signal inside the process's first NVRTC compile (made
       slow with a --kernels-dir); one inside a long later compile, with a
       second signal after it; both signals at once while section jit's
       NVRTC --time directory is there (six runs); a FIFO as an output (no
       reader: waited for, until a signal; read: written) and as a kernel
       source (refused).
  gpu  a default run (no options) on the GPU, N delays (default 10).
$HARNESS names the binary (default ./harness).

A run without signals first measures how long the run lasts and its exit
code; then each run gets SIGINT or SIGTERM (alternating) at a delay spread
over that length, and every third one the other signal shortly after (5 ms
or 100 ms). Each run must end within 5 s of the first signal and within 1 s
of a second, and then either
  - have printed "harness: stopped: interrupted by SIG...", exited 128 + that
    signal, and written the JSON, CSV and trace, each marked incomplete and
    named in that line (tests/check_json.py, tests/check_trace.py); or
  - have been ended by the second signal: exit 128 + it (files, where
    written, whole); or
  - have finished first: its own exit code, or 128 + the signal when it came
    after the last section (the results whole);
and leave its TMPDIR empty, no "*.tmp.*" file beside its outputs (unless a
second signal cut a write) and no process of its session alive.
--only runs the listed storm runs of the plan (0-based, in the order
printed), so that a long plan can be split; --duration skips the run without
signals (its exit code is then taken to be 0). One PASSED or FAILED line per
run; exits 1 on any failure."""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
import harness_json as hj  # noqa: E402  (the one JSON reader)

HARNESS = os.path.abspath(os.environ.get("HARNESS", "./harness"))
FIRST_LIMIT_S = 5.0      # a stop's own bound is 2 s (the blocking kernel's stream)
SECOND_LIMIT_S = 1.0
NAMES = {signal.SIGINT: "SIGINT", signal.SIGTERM: "SIGTERM"}
NO_DRIVER = "/nonexistent/libcuda.so.1"


class Case:
    """One harness command line to storm: args, extra environment, and how many delays."""

    def __init__(self, name, args, env=None, delays=0, timeout=300.0):
        self.name, self.args, self.env = name, args, env or {}
        self.delays, self.timeout = delays, timeout
        self.length, self.code = None, None   # from the run without signals


def session_alive(sid):
    """Processes of session sid that are not zombies (/proc/PID/stat)."""
    alive = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                st = f.read()
        except OSError:
            continue
        rest = st[st.rindex(")") + 2:].split()
        if int(rest[3]) == sid and rest[0] != "Z":
            alive.append(int(d))
    return alive


class Run:
    """One start of the harness in a directory of its own, its outputs in it,
    TMPDIR under it, in a session of its own."""

    def __init__(self, case, where, json=True):
        self.case, self.dir = case, where
        self.tmp = os.path.join(where, "tmp")
        os.makedirs(self.tmp)
        self.files = {"json": os.path.join(where, "r.json"), "csv": os.path.join(where, "r.csv"),
                      "trace": os.path.join(where, "r.trace.json")}
        if not json:
            del self.files["json"]
        self.err_path = os.path.join(where, "err")
        self.problems = []

    def start(self, extra=()):
        args = [HARNESS] + self.case.args + list(extra) + \
            ["--%s=%s" % (k, v) for k, v in sorted(self.files.items())]
        env = dict(os.environ, TMPDIR=self.tmp, **self.case.env)
        with open(os.path.join(self.dir, "out"), "wb") as out, open(self.err_path, "wb") as err:
            self.p = subprocess.Popen(args, stdout=out, stderr=err, env=env, start_new_session=True)
        self.t0 = time.monotonic()

    def signal_at(self, t, sig):
        """Send sig at t s after the start; returns the time sent, None when the run had ended."""
        try:
            self.p.wait(timeout=max(0.0, self.t0 + t - time.monotonic()))
            self.t_end = time.monotonic()
            return None
        except subprocess.TimeoutExpired:
            os.kill(self.p.pid, sig)
            return time.monotonic()

    def wait(self, deadline, why):
        if self.p.returncode is None:
            try:
                self.p.wait(timeout=max(0.01, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.problems.append("still running %s; killed" % why)
                os.killpg(self.p.pid, signal.SIGKILL)
                self.p.wait()
            self.t_end = time.monotonic()
        rc = self.p.returncode
        self.rc = 128 - rc if rc < 0 else rc
        with open(self.err_path, errors="replace") as f:
            self.err = f.read()

    def leftovers(self, tmp_files_ok=False):
        """The checks every run gets: no sanitizer report (make sanitize), TMPDIR
        empty, no temporary output file, no process."""
        for mark in ("ERROR: AddressSanitizer", "runtime error:", "WARNING: ThreadSanitizer"):
            if mark in self.err:
                self.problems.append("a sanitizer report: %s" % mark)
        if os.listdir(self.tmp):
            self.problems.append("TMPDIR holds %s" % sorted(os.listdir(self.tmp)))
        tmps = [f for f in os.listdir(self.dir) if ".tmp." in f]
        if tmps and not tmp_files_ok:
            self.problems.append("temporary output files left: %s" % tmps)
        for _ in range(20):
            alive = session_alive(self.p.pid)
            if not alive:
                break
            time.sleep(0.05)
        if alive:
            self.problems.append("processes of its session still alive: %s" % alive)
            for pid in alive:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass

    def stopped_files(self, why):
        """A stopped run's outputs: each written, marked incomplete, named in the stop line."""
        line = [ln for ln in self.err.splitlines() if ln.startswith("harness: stopped: ")]
        checkers = {"json": ["check_json.py", "--expect-stopped", why],
                    "trace": ["check_trace.py", "--expect-stopped", why]}
        for kind, path in sorted(self.files.items()):
            if not os.path.exists(path):
                self.problems.append("no %s written" % kind)
                continue
            if line and path not in line[0]:
                self.problems.append("the stop line does not name the %s" % kind)
            if kind == "csv":
                with open(path, errors="replace") as f:
                    if not f.readline().startswith("section,key,name,state"):
                        self.problems.append("the CSV has no header")
                continue
            c = checkers[kind]
            r = subprocess.run([sys.executable, os.path.join(HERE, c[0]), path] + c[1:],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if r.returncode != 0:
                self.problems.append("%s: %s" % (c[0], r.stdout.strip().splitlines()[-1:]))

    def whole_files(self):
        """Outputs that exist read back (a run ended at once writes some, or none)."""
        path = self.files.get("json")
        if path and os.path.exists(path):
            try:
                hj.read_json(path)
            except hj.Bad as e:
                self.problems.append("the JSON is not whole: %s" % e)

    def verdict(self, what):
        ok = not self.problems
        return "%s storm %s: %s: %s" % ("PASSED" if ok else "FAILED", self.case.name, what,
                                         "; ".join(self.problems) if not ok else "ok")


def storm_run(case, where, delay, sig, sig2, gap):
    """One run of the storm: sig at delay, sig2 gap s after it (None: none)."""
    r = Run(case, where)
    r.start()
    t1 = r.signal_at(delay, sig)
    t2 = r.signal_at(delay + gap, sig2) if sig2 and t1 else None
    if t2:
        r.wait(t2 + SECOND_LIMIT_S, "%.0f s after the second signal" % SECOND_LIMIT_S)
    elif t1:
        r.wait(t1 + FIRST_LIMIT_S, "%.0f s after the signal" % FIRST_LIMIT_S)
    else:
        r.wait(r.t0 + case.timeout, "at its time limit")
    what = "%s at %.2f s%s" % (NAMES[sig], delay, " + %s %.0f ms later" % (NAMES[sig2], gap * 1000)
                                if sig2 else "")
    stopped = "harness: stopped: interrupted by %s; exit code" % NAMES[sig] in r.err
    if not t1:
        outcome = "finished before the signal"
        if r.rc != case.code:
            r.problems.append("exit %d, expected its own %d" % (r.rc, case.code))
    elif t2 and r.rc == 128 + sig2 and not stopped:
        outcome = "ended by the second signal"
        r.whole_files()
    elif stopped:
        outcome = "stopped"
        if r.rc != 128 + sig and not (t2 and r.rc == 128 + sig2):
            r.problems.append("exit %d, expected %d" % (r.rc, 128 + sig))
        r.stopped_files("interrupted by " + NAMES[sig])
    elif r.rc in (case.code, 128 + sig):
        outcome = "finished first"
        r.whole_files()
    else:
        outcome = "no stop line"
        r.problems.append("exit %d and no stop line (stderr: %r)" % (r.rc, r.err[-300:]))
    r.leftovers(tmp_files_ok=outcome == "ended by the second signal")
    return r.verdict("%s: %s, exit %d, %.2f s after %s" % (
        what, outcome, r.rc, r.t_end - (t2 or t1 or r.t0),
        "the second signal" if t2 else "the signal" if t1 else "its start"))


def measure(case, where):
    """The run without signals: its length and exit code."""
    r = Run(case, where)
    r.start()
    r.wait(r.t0 + case.timeout, "at its time limit")
    case.length, case.code = r.t_end - r.t0, r.rc
    r.leftovers()
    if r.rc not in (0, 1, 3):
        r.problems.append("exit %d without a signal" % r.rc)
    return r.verdict("without a signal: exit %d in %.2f s" % (r.rc, case.length))


def schedule(case):
    """(delay, signal, second signal, gap) for each of the case's runs, over its length."""
    out = []
    for i in range(case.delays):
        sig = signal.SIGINT if i % 2 == 0 else signal.SIGTERM
        other = signal.SIGTERM if sig == signal.SIGINT else signal.SIGINT
        sig2 = other if i % 3 == 2 else None
        gap = 0.005 if i % 6 == 2 else 0.1
        out.append((case.length * (i + 0.5) / case.delays, sig, sig2, gap))
    return out


def in_parallel(jobs, tasks):
    """Run the callables, jobs at a time; their lines in the tasks' order."""
    lines = [None] * len(tasks)
    lock = threading.Lock()
    todo = list(range(len(tasks)))

    def worker():
        while True:
            with lock:
                if not todo:
                    return
                i = todo.pop(0)
            try:
                lines[i] = tasks[i]()
            except Exception as e:   # a broken run is a failed check, not a traceback
                lines[i] = "FAILED storm: task %d: %s" % (i, traceback.format_exc().strip().splitlines()[-3:])

    threads = [threading.Thread(target=worker) for _ in range(max(1, jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return lines


def kernels_dir(where, name, asserts):
    """A copy of kernels/ whose `name` keeps NVRTC's front end busy for seconds
    (where NVRTC's own SIGINT and SIGTERM handlers are, in a process's first
    compile): `asserts` static_asserts, each evaluating a constexpr loop of
    half a million steps (about 0.5 s each on a 2-core test host)."""
    d = os.path.join(where, "kernels-" + name.replace(".", "-"))
    shutil.copytree(os.path.join(HERE, "..", "kernels"), d)
    with open(os.path.join(d, name), "a") as f:
        f.write("__device__ constexpr unsigned long long storm_sum(unsigned long long n)\n{\n"
                "    unsigned long long s = 0;\n"
                "    for (unsigned long long i = 0; i < n; i++) s += i * i % 7;\n"
                "    return s;\n}\n")
        for i in range(asserts):
            f.write('static_assert(storm_sum(%dull) != 1, "");\n' % (500000 + i))
    return d


def fifo_cases(where, quick):
    """A FIFO as an output with no reader, with one, as the JSON of a stopped
    run, and as a kernel source."""
    lines = []
    base = Case("fifo", quick)
    lines.append(measure(base, os.path.join(where, "fifo-base")))

    # No reader: the run waits for one at its end, and a signal ends the wait.
    r = Run(base, os.path.join(where, "fifo-noreader"), json=False)
    fifo = os.path.join(r.dir, "out.json")
    os.mkfifo(fifo)
    r.start(["--json=" + fifo])
    t1 = r.signal_at(base.length + 1.0, signal.SIGINT)
    if not t1:
        r.problems.append("it ended before the signal: a --json FIFO with no reader was not waited for")
        r.wait(time.monotonic() + 1, "")
    else:
        r.wait(t1 + SECOND_LIMIT_S, "%.0f s after the signal" % SECOND_LIMIT_S)
        if r.rc != 130:
            r.problems.append("exit %d, expected 130" % r.rc)
        if "cannot write %s: no process reads the FIFO" % fifo not in r.err:
            r.problems.append("no line says the FIFO had no reader")
        r.whole_files()
    r.leftovers()
    lines.append(r.verdict("--json a FIFO with no reader, SIGINT 1 s after the run's end"))

    # A reader: the JSON arrives through it, whole.
    r = Run(base, os.path.join(where, "fifo-reader"), json=False)
    fifo = os.path.join(r.dir, "out.json")
    got = os.path.join(r.dir, "got.json")
    os.mkfifo(fifo)

    def read_fifo():
        with open(fifo, "rb") as src, open(got, "wb") as dst:
            dst.write(src.read())

    reader = threading.Thread(target=read_fifo, daemon=True)
    reader.start()
    r.start(["--json=" + fifo])
    r.wait(r.t0 + base.timeout, "at its time limit")
    reader.join(5)
    if r.rc != base.code:
        r.problems.append("exit %d, expected %d" % (r.rc, base.code))
    try:
        hj.read_json(got)
    except (hj.Bad, OSError) as e:
        r.problems.append("what the reader got is not the JSON: %s" % e)
    r.leftovers()
    lines.append(r.verdict("--json a FIFO that a process reads"))

    # A stopped run whose --json is a FIFO with no reader: the rest is written.
    r = Run(base, os.path.join(where, "fifo-stop"), json=False)
    fifo = os.path.join(r.dir, "out.json")
    os.mkfifo(fifo)
    r.start(["--json=" + fifo])
    t1 = r.signal_at(base.length / 2, signal.SIGTERM)
    r.wait((t1 or r.t0) + FIRST_LIMIT_S, "%.0f s after the signal" % FIRST_LIMIT_S)
    if r.rc != 143:
        r.problems.append("exit %d, expected 143" % r.rc)
    if "%s could not be written" % fifo not in r.err:
        r.problems.append("the stop line does not say the FIFO could not be written")
    r.stopped_files("interrupted by SIGTERM")
    r.leftovers()
    lines.append(r.verdict("SIGTERM mid-run, --json a FIFO with no reader"))

    # A kernel source that is a FIFO: refused at once, never waited on.
    d = os.path.join(where, "kernels-fifo")
    shutil.copytree(os.path.join(HERE, "..", "kernels"), d)
    os.remove(os.path.join(d, "vector.cu"))
    os.mkfifo(os.path.join(d, "vector.cu"))
    r = Run(Case("fifo", quick + ["--kernels-dir=" + d]), os.path.join(where, "fifo-source"))
    r.start()
    r.wait(r.t0 + FIRST_LIMIT_S, "%.0f s after its start (blocked on the FIFO)" % FIRST_LIMIT_S)
    if "vector.cu: not a regular file (a FIFO)" not in r.err:
        r.problems.append("no line names the FIFO source")
    if r.rc in (0, 130, 143):
        r.problems.append("exit %d" % r.rc)
    r.leftovers()
    lines.append(r.verdict("a kernel source that is a FIFO: exit %d" % r.rc))
    return lines


def plan_ci(where, args):
    """The CPU storm: the stand-in driver's sections and jit's NVRTC part."""
    quick = ["--quick", "--reps=1", "--rounds=1", "--quiet", "--synthetic-kernels=1"]
    cases = []
    fake = os.environ.get("FAKECUDA")
    if fake and os.path.exists(fake):
        # Section visible's children take 20 ms a device of 4 (cuInit and the
        # contexts: FAKE_CUDA_INIT_US), so that signals land while one runs.
        slow = {"visible": {"FAKE_CUDA_DEVICES": "4", "FAKE_CUDA_INIT_US": "20000"}}
        for s in ("visible", "stopwatches", "crossover", "loading", "jit", "launch", "fusion"):
            env = dict(slow.get(s, {}), HARNESS_LIBCUDA=os.path.abspath(fake))
            cases.append(Case("fake-driver " + s, ["--section=" + s, "--sizes=1024"] + quick, env,
                              args.section_delays))
    else:
        print("FAILED storm: the stand-in driver (FAKECUDA) is missing")
    cases.append(Case("jit NVRTC", ["--section=jit"] + quick, {"HARNESS_LIBCUDA": NO_DRIVER},
                      args.delays or 20))
    lines = run_cases(where, cases, args)

    # The process's first NVRTC compile, its front end made slow (vector.cu,
    # the first that section jit compiles: about 2 s), a signal 1 s in.
    slow = kernels_dir(where, "vector.cu", 4)
    first = Case("first NVRTC compile", ["--section=jit", "--kernels-dir=" + slow] + quick,
                 {"HARNESS_LIBCUDA": NO_DRIVER})
    first.code = 3
    # A long compile after the first (empty.cu, compiled third), SIGINT 1 s
    # in and SIGTERM 0.25 s later.
    late = Case("long later compile", ["--section=jit", "--kernels-dir=" +
                                       kernels_dir(where, "empty.cu", 4)] + quick,
                {"HARNESS_LIBCUDA": NO_DRIVER})
    late.code = 3
    tasks = [lambda: storm_run(first, os.path.join(where, "first-int"), 1.0, signal.SIGINT, None, 0),
             lambda: storm_run(first, os.path.join(where, "first-term"), 1.0, signal.SIGTERM, None, 0),
             lambda: storm_run(late, os.path.join(where, "late-int"), 1.0, signal.SIGINT,
                               signal.SIGTERM, 0.25),
             lambda: storm_run(late, os.path.join(where, "late-term"), 1.0, signal.SIGTERM,
                               signal.SIGINT, 0.25)]
    # Two signals at once while NVRTC writes its --time file, six runs.
    both = Case("two signals", ["--section=jit"] + quick, {"HARNESS_LIBCUDA": NO_DRIVER})
    tasks += [lambda i=i: two_at_once(both, os.path.join(where, "both-%d" % i)) for i in range(6)]
    lines += in_parallel(args.jobs, tasks)
    lines += fifo_cases(where, ["--section=jit"] + quick)
    return lines


def two_at_once(case, where):
    """SIGINT and SIGTERM back to back, sent as soon as section jit's NVRTC
    --time directory is there: the second signal ends the process before
    the first one's stop has cleaned up, so the kill hook alone must empty
    TMPDIR (on a sanitizer build, where the stop starts slowly, it left the
    directory behind)."""
    r = Run(case, where)
    r.start()
    seen = None
    while r.p.poll() is None and time.monotonic() < r.t0 + case.timeout:
        seen = [f for f in os.listdir(r.tmp) if f.startswith("harness-nvrtc-time-")]
        if seen:
            break
        time.sleep(0.0005)
    if not seen or r.p.poll() is not None:
        r.problems.append("no NVRTC --time directory seen while it ran")
    else:
        os.kill(r.p.pid, signal.SIGINT)
        os.kill(r.p.pid, signal.SIGTERM)
    r.wait(time.monotonic() + SECOND_LIMIT_S, "%.0f s after the signals" % SECOND_LIMIT_S)
    ended = r.rc == 143 and "a second signal (SIGTERM)" in r.err
    if r.rc not in (130, 143):
        r.problems.append("exit %d, expected 130 or 143" % r.rc)
    r.leftovers(tmp_files_ok=ended)
    return r.verdict("SIGINT and SIGTERM at once in a --time compile: %s, exit %d" % (
        "ended by the second signal" if ended else "stopped", r.rc))


def plan_gpu(where, args):
    return run_cases(where, [Case("default run", [], {}, args.delays or 10, timeout=3600.0)], args)


def run_cases(where, cases, args):
    """Measure each case without signals (or take --duration), then storm it."""
    lines = []
    need = [c for c in cases if args.duration is None]
    lines += in_parallel(args.jobs, [lambda c=c, i=i: measure(c, os.path.join(where, "base-%d" % i))
                                     for i, c in enumerate(need)])
    for c in cases:
        if args.duration is not None:
            c.length, c.code = args.duration, 0
    runs = [(c, s) for c in cases if c.length is not None for s in schedule(c)]
    if args.only is not None:
        runs = [runs[i] for i in args.only if i < len(runs)]
    lines += in_parallel(args.jobs, [
        lambda c=c, s=s, i=i: storm_run(c, os.path.join(where, "run-%d" % i), *s)
        for i, (c, s) in enumerate(runs)])
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("plan", choices=("ci", "gpu"))
    ap.add_argument("--delays", type=int, help="runs of the main case (ci: jit's NVRTC part, "
                    "20; gpu: 10)")
    ap.add_argument("--section-delays", type=int, default=4,
                    help="ci: runs of each section on the stand-in driver (default 4)")
    ap.add_argument("--jobs", type=int, default=2, help="runs at a time (default 2)")
    ap.add_argument("--duration", type=float, help="the run's length in s, instead of measuring it")
    ap.add_argument("--only", type=lambda s: [int(x) for x in s.split(",")],
                    help="run only these storm runs (0-based)")
    ap.add_argument("--keep", help="keep every run's files in this directory")
    args = ap.parse_args()
    where = args.keep or tempfile.mkdtemp(prefix="storm-")
    os.makedirs(where, exist_ok=True)
    t0 = time.monotonic()
    try:
        lines = (plan_ci if args.plan == "ci" else plan_gpu)(where, args)
    finally:
        if not args.keep:
            shutil.rmtree(where, ignore_errors=True)
    for ln in lines:
        print(ln)
    failed = sum(1 for ln in lines if ln.startswith("FAILED"))
    print("storm %s: %d runs, %d failed, %.0f s" % (args.plan, len(lines), failed,
                                                    time.monotonic() - t0))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
