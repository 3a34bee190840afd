#!/usr/bin/env python3
"""A stand-in for a user's CUDA program, for the CPU tests of `-- CMD`.

Where the probe would be loaded (HARNESS_PROBE_DIR set: a probed run), it
writes the record the probe would write for each of its processes, with the
figures the options give for the mode in CUDA_MODULE_LOADING; then it
sleeps, exits, hangs or dies as asked. Standard library only.

Options (a value "LAZY=a,EAGER=b" depends on the mode; a plain number is
for both):
  --version V          the harness version the records name (required for records)
  --sleep S            seconds before exiting
  --first-kernel MS    at.first_kernel of the main process
  --mem MIB            mem.first_kernel
  --effective MODE     the loading mode the record says was in effect
  --workers N          N more CUDA processes (forked), each with a record
  --exit N             exit status (by mode: "LAZY=5,EAGER=0")
  --fail-every K       exit 1 on every K-th call (a counter file in $STANDIN_STATE)
  --hang               sleep forever (a worker that hangs too, its pid in $STANDIN_STATE/hung)
  --signal SIG         kill itself with SIG (by mode: "LAZY=SIGSEGV", none for the others)
  --no-cuda            write no record
  --truncate           write the record without its end line
  --forge-pid          write the record under another pid than its own
  --spans N            N span lines
  --cupti WHY          the record's cupti field (default "ok")
  --uses SPEC          first uses: "name@at:get:launch[:later_n:later_ms[:free:took[:busy]]]"
                       entries joined by ';' (at: ms after the spawn), as use.<i>
  --uses-eager SPEC    the same, under EAGER in place of --uses
  --loads SPEC         loads after the first kernel: "kind@at:ms:free:took[:span]" joined by ';'
  --ready-line TEXT    print TEXT on stdout first (a server's "ready" line)
  --marks SPEC         NVTX marks "text@at" joined by ';' (at: ms after the
                       spawn): where the harness made the probe the NVTX tool
                       (NVTX_INJECTION64_PATH and HARNESS_PROBE_READY set), the
                       record's marks.n and at.ready_mark (the first text that
                       HARNESS_PROBE_READY matches, as Python's re reads it)
  --needs SPEC         a use that needs device memory, "MODE=MiB:call:name" entries
                       joined by ',' (a plain "MiB:call:name" for every mode): where
                       FAKE_CUDA_FREE_MIB is set (tests/fakecuda's shared device
                       memory) and the device has less than MiB free, the record
                       holds fail.1: that call on name, CUDA_ERROR_OUT_OF_MEMORY,
                       with the free memory; stderr says so and the exit is 1. Call
                       "-": the program's own allocation failed (nothing recorded)
  --live SPEC          the live record the probe would keep (src/probe/live.h),
                       written by $LIVE_PLANT (tests/live_plant.c) from its
                       commands joined by ';'; "LAZY=cmds|EAGER=cmds" for a mode alone
  --hold MIB           the device memory it holds: FAKE_CUDA_MEM_DIR/<pid> (the stand-in
                       driver's and NVML's count), written before the ready line
  --snapshot-wait S    after the ready line, wait up to S seconds for the stand-in driver
                       to lock it, and once locked (a lock blocks a CUDA process's calls)
                       until it lets it go again (30 s at most) (FAKE_CUDA_MEM_DIR/ckpt.<pid> seen
                       other than 0, then 0), polling every 0.5 ms; its own pause (the
                       first look that saw it held to the first that saw it free) on
                       stderr as "stand-in paused MS ms" and into $STANDIN_STATE/pause.<pid>
  --live-workers       the workers plant the live record of --live, hold --hold's memory
                       and wait as --snapshot-wait says too (the main process's ready line
                       then comes 0.2 s after they started)
  --uses-after SPEC    first uses as --uses, but each at that many ms after the moment it
                       went on after the ready line (and the wait)
  --ptx MS             one PTX image a process, its load MS ms where
                       $CUDA_CACHE_PATH holds no "jit" file (the file then
                       written there, 4096 bytes: a JIT cache), MS/100 where
                       it does; without CUDA_CACHE_PATH, MS every run
"""
import os
import random
import re
import signal
import sys
import time


def by_mode(spec, mode):
    if spec is None:
        return None
    if "=" not in spec:
        return float(spec)
    for part in spec.split(","):
        k, v = part.split("=")
        if k == mode:
            return float(v)
    return None


def esc(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def jit_ms(opts):
    """--ptx: the load's ms, cold or warm by the cache's "jit" file (written
    when cold); None without --ptx."""
    if opts.get("ptx") is None:
        return None
    ms = float(opts["ptx"])
    cache = os.environ.get("CUDA_CACHE_PATH")
    if not cache:
        return ms
    path = os.path.join(cache, "jit")
    if os.path.exists(path):
        return ms / 100
    os.makedirs(cache, exist_ok=True)
    with open(path, "wb") as f:
        f.write(b"x" * 4096)
    return ms


def marks(opts):
    """--marks: the figures the probe writes as the program's NVTX tool."""
    expr = os.environ.get("HARNESS_PROBE_READY")
    if not expr or not os.environ.get("NVTX_INJECTION64_PATH"):
        return []
    seen = [m.rsplit("@", 1) for m in (opts.get("marks") or "").split(";") if m]
    figs = [("marks.n", "count", len(seen))]
    hits = [float(at) for text, at in seen if re.search(expr, text)]
    return figs + ([("at.ready_mark", "ms", hits[0])] if hits else [])


def device_free_mib():
    """The stand-in driver's shared device memory free now (MiB): its
    FAKE_CUDA_FREE_MIB less what the live processes of FAKE_CUDA_MEM_DIR
    hold; None without them."""
    total, d = os.environ.get("FAKE_CUDA_FREE_MIB"), os.environ.get("FAKE_CUDA_MEM_DIR")
    if total is None or not d:
        return None
    held = 0
    for name in os.listdir(d):
        if not name.isdigit():
            continue
        try:
            stat = open("/proc/%s/stat" % name).read()
            if stat[stat.rindex(")") + 2] in "ZX":
                continue
            held += int(open(os.path.join(d, name)).read() or 0)
        except (OSError, ValueError):
            continue
    return int(total) - held / 2 ** 20


def unmet_need(opts, mode):
    """--needs: (call, name, free) of this mode's need the device cannot
    meet now, or None."""
    free = device_free_mib()
    if free is None or not opts.get("needs"):
        return None
    for part in opts["needs"].split(","):
        m, _, spec = part.rpartition("=")
        if m and m != mode:
            continue
        mib, call, name = spec.split(":", 2)
        if free < float(mib):
            return call, name, free
    return None


def record(opts, mode, pid, first_kernel, worker):
    t0 = int(os.environ.get("HARNESS_PROBE_T0_NS", "0"))
    now_ms = (time.clock_gettime_ns(time.CLOCK_MONOTONIC) - t0) / 1e6 if t0 else 1.0
    env = [
        ("record", "s", "harness-probe 1"), ("version", "s", opts["version"]),
        ("pid", "n", str(pid)), ("ppid", "n", str(os.getppid())),
        ("command", "s", "standin worker" if worker else "standin main"),
        ("written", "s", "exit"), ("cupti", "s", opts.get("cupti") or "ok"),
        ("loading_mode", "s", opts.get("effective") or mode or "unread"),
        ("mem_source", "s", "nvml process"), ("device", "s", os.environ.get("STANDIN_DEVICE", "00000000:00:00.0")),
    ]
    jitter = random.uniform(0, 3)
    ptx = jit_ms(opts)
    figs = [
        ("at.probe", "ms", now_ms),
        ("at.context", "ms", now_ms + 1),
        ("at.first_kernel", "ms", now_ms + 2 + first_kernel + jitter),
        ("at.exit", "ms", now_ms + 3 + first_kernel + jitter),
        ("contexts.n", "count", 1),
        ("library_load.n", "count", 3424 if mode == "EAGER" else 11),
        ("library_load.ms", "ms", (3000 if mode == "EAGER" else 64) + jitter + (ptx or 0)),
        ("kernel_function.n", "count", 8),
        ("kernel_function.ms", "ms", (0.5 if mode == "EAGER" else 9.5) + jitter / 10),
        ("launch_first.n", "count", 2),
        ("launch_first.ms", "ms", 1.5 + jitter / 10),
        ("launch_later.n", "count", 1),
        ("launch_later.ms", "ms", 0.01),
        ("mem.first_kernel", "MiB", (opts.get("mem") or 0) + jitter),
        ("rss.peak", "MiB", 100 + jitter),
    ]
    if ptx is not None:
        figs += [("ptx.n", "count", 1), ("ptx.ms", "ms", ptx)]
    figs += marks(opts)
    lines = ["env\t%s\t%s\t%s" % (k, t, esc(v)) for k, t, v in env]
    for key, unit, v in figs:
        lines.append("m\tprogram\t%s\t%s\t%s\tprocess\t%s\t1\t0\t0\t0\t%.17g\t0\t0\t0\t" %
                     (key, key, "stand-in", unit, v))
    lines.append("d\tprogram\tslowest.1\t_Z7kernelAPf\t%.17g\tms\t\tget_ms=%.17g,launch_ms=1" %
                 (1 + (9 if mode == "LAZY" else 0.5), 9 if mode == "LAZY" else 0.5))
    lines.append("d\tprogram\tslowest.2\tkernelB\t0.5\tms\t\tget_ms=0.25,launch_ms=0.25")
    spec = opts.get("uses_eager") if mode == "EAGER" and opts.get("uses_eager") else opts.get("uses")
    after = [u for u in (opts.get("uses_after") or "").split(";") if u] if not worker else []
    for i, u in enumerate([x for x in (spec or "").split(";") if x] + after):
        name, rest = u.split("@")
        f = [float(v) for v in rest.split(":")]
        if u in after:
            f[0] += opts["went_on"]
        fields = "get_ms=%.17g,launch_ms=%.17g" % (f[1], f[2])
        if len(f) >= 5:
            fields += ",later_n=%.17g,later_ms=%.17g" % (f[3], f[4])
        if len(f) >= 7:
            fields += ",free_mib=%.17g,took_mib=%.17g" % (f[5], f[6])
        if len(f) >= 8:
            fields += ",busy=%.17g" % f[7]
        lines.append("d\tprogram\tuse.%d\t%s\t%.17g\tms\t\t%s" % (i + 1, esc(name), f[0], fields))
    for i, u in enumerate(x for x in (opts.get("loads") or "").split(";") if x):
        kind, rest = u.split("@")
        f = [float(v) for v in rest.split(":")]
        span = ",span_ms=%.17g" % f[4] if len(f) >= 5 else ""
        lines.append("d\tprogram\tload.%d\t%s\t%.17g\tms\t\tn=1,ms=%.17g,free_mib=%.17g,took_mib=%.17g%s"
                     % (i + 1, kind, f[0], f[1], f[2], f[3], span))
    fail = opts.get("failed")
    if fail and fail[0] != "-":
        lines.append("d\tprogram\tfail.1\t%s\t%.17g\tms\t%s CUDA_ERROR_OUT_OF_MEMORY\terror=2,free_mib=%.17g"
                     % (esc(fail[1]), now_ms + 2, fail[0], max(fail[2], 0)))
    n = len(lines)
    for i in range(int(opts.get("spans") or 0)):
        lines.append("span\t%d\tcuLibraryLoadData\t%.3f\t%.3f" % (pid, now_ms + i, 0.5))
    if not opts.get("truncate"):
        lines.append("end\t%d\t%d" % (pid, n))
    name = pid + 1 if opts.get("forge_pid") else pid
    d = os.environ["HARNESS_PROBE_DIR"]
    tmp = os.path.join(d, ".%d.tmp" % pid)
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.rename(tmp, os.path.join(d, "%d.rec" % name))


def by_mode_str(spec, mode):
    """spec's value for mode: "LAZY=a|EAGER=b" (or with ','), a plain value for every mode."""
    parts = spec.split("|" if spec and "|" in spec else ",") if spec else []
    if not parts or "=" not in parts[0] or parts[0].partition("=")[0] not in ("LAZY", "EAGER"):
        return spec
    for part in parts:
        m, _, v = part.partition("=")
        if m == mode:
            return v
    return None


def plant_live(opts, mode):
    """The live record of --live, by $LIVE_PLANT, for this process."""
    cmds = by_mode_str(opts.get("live"), mode)
    plant = os.environ.get("LIVE_PLANT")
    if not cmds or not plant:
        return
    import subprocess
    subprocess.run([plant, os.environ["HARNESS_PROBE_DIR"], str(os.getpid()),
                    os.environ.get("HARNESS_PROBE_T0_NS", "0"), cmds], check=True)


def hold(opts):
    """--hold: this process's device memory, as the stand-in driver counts it."""
    d = os.environ.get("FAKE_CUDA_MEM_DIR")
    if opts.get("hold") and d:
        with open(os.path.join(d, str(os.getpid())), "w") as f:
            f.write(str(int(float(opts["hold"]) * 2 ** 20)))


def snapshot_wait(opts):
    """--snapshot-wait: wait for the stand-in driver to hold this process
    and let it go; its own pause kept. Returns when it went on (ms after
    the spawn)."""
    t0 = int(os.environ.get("HARNESS_PROBE_T0_NS", "0"))
    d, state = os.environ.get("FAKE_CUDA_MEM_DIR"), os.environ.get("STANDIN_STATE")
    wait = float(opts.get("snapshot_wait") or 0)
    path = os.path.join(d, "ckpt.%d" % os.getpid()) if d else None
    end, held = time.monotonic() + wait, None
    while path and time.monotonic() < end:
        try:
            v = open(path).read().strip()
        except OSError:
            v = "0"
        if v not in ("", "0") and held is None:
            held = time.monotonic()
            end = held + 30
        if v == "0" and held is not None:
            pause = (time.monotonic() - held) * 1e3
            sys.stderr.write("stand-in paused %.3f ms\n" % pause)
            if state:
                open(os.path.join(state, "pause.%d" % os.getpid()), "w").write("%.3f" % pause)
            break
        time.sleep(0.0005)
    return (time.clock_gettime_ns(time.CLOCK_MONOTONIC) - t0) / 1e6 if t0 else 0.0


def main(argv):
    opts, i = {}, 1
    flags = {"--hang", "--no-cuda", "--truncate", "--forge-pid", "--live-workers"}
    while i < len(argv):
        a = argv[i]
        if a in flags:
            opts[a[2:].replace("-", "_")] = True
            i += 1
        else:
            opts[a[2:].replace("-", "_")] = argv[i + 1]
            i += 2
    mode = os.environ.get("CUDA_MODULE_LOADING")
    state = os.environ.get("STANDIN_STATE")
    if opts.get("fail_every") and state:
        path = os.path.join(state, "count")
        n = int(open(path).read()) + 1 if os.path.exists(path) else 1
        open(path, "w").write(str(n))
        if n % int(opts["fail_every"]) == 0:
            sys.exit(1)
    probed = "HARNESS_PROBE_DIR" in os.environ and not opts.get("no_cuda")
    opts["mem"] = by_mode(opts.get("mem"), mode)
    fk = by_mode(opts.get("first_kernel"), mode) or 0.0
    sleep = by_mode(opts.get("sleep"), mode) or 0.0
    workers = []
    for w in range(int(opts.get("workers") or 0)):
        pid = os.fork()
        if pid == 0:
            if probed and opts.get("live_workers"):
                hold(opts)
                plant_live(opts, mode)
                opts["went_on"] = snapshot_wait(opts)
            if probed:
                record(opts, mode, os.getpid(), fk + 5, True)
                # A CUDA process lives far longer than the harness's reads
                # of its process tree (every 5 ms): so does a worker here.
                time.sleep(0.2)
            if opts.get("hang"):
                if state:
                    open(os.path.join(state, "hung"), "w").write(str(os.getpid()))
                while True:
                    time.sleep(1)
            os._exit(0)
        workers.append(pid)
    if opts.get("hang") and state and not workers:
        pid = os.fork()
        if pid == 0:
            open(os.path.join(state, "hung"), "w").write(str(os.getpid()))
            while True:
                time.sleep(1)
    hold(opts)
    if probed:
        plant_live(opts, mode)
    if workers and opts.get("live_workers"):
        time.sleep(0.2)
    if opts.get("ready_line"):
        print(opts["ready_line"], flush=True)
    opts["went_on"] = snapshot_wait(opts)
    opts["failed"] = unmet_need(opts, mode)
    if probed:
        record(opts, mode, os.getpid(), fk, False)
    if opts["failed"]:
        call, name, free = opts["failed"]
        sys.stderr.write("stand-in: out of memory (%s of %s, %.0f MiB free)\n"
                         % ("its own allocation" if call == "-" else call, name, free))
        sys.exit(1)
    print("stand-in ran in mode %s" % mode)
    sys.stderr.write("stand-in's stderr\n")
    sys.stdout.flush()
    for pid in workers:
        if not opts.get("hang"):
            os.waitpid(pid, 0)
    if opts.get("hang"):
        while True:
            time.sleep(1)
    time.sleep(sleep)
    sig = by_mode_str(opts.get("signal"), mode)
    if sig:
        os.kill(os.getpid(), getattr(signal, sig))
    sys.exit(int(by_mode(opts.get("exit"), mode) or 0))


if __name__ == "__main__":
    main(sys.argv)
