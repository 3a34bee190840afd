#!/usr/bin/env python3
"""A hostile stand-in for a user's program, for tests/test_hostile.sh: it
does, once, what a program may do to the harness that runs it (-- CMD).
Where a record is written, it is the one tests/standin_program.py writes.
Standard library only; its state (pids, markers) goes to $STANDIN_STATE.

  --version V          the harness version the records name
  --fifo-record        a FIFO named <pid>.rec in the record directory
  --fifo-output        its own stdout file replaced by a FIFO
  --big-record N       a record of N env lines (each a new field)
  --records N          N CUDA processes: N - 1 forked, each with a record
  --symlink-dir        the record directory replaced by a link to one of its own
  --mode-0             its record written, then the record directory made mode 0
  --forge-pid1         a whole record of pid 1 (1.rec) beside its own
  --chdir DIR          change directory before the record is written
  --setsid-child       a child that calls setsid and sleeps (pid in survivor)
  --hang-main          write its own pid to main, a worker's to hung; sleep
  --sleep S            sleep S seconds before exiting
  --exit N             exit status
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import standin_program as sp  # noqa: E402


def state(name, value):
    d = os.environ.get("STANDIN_STATE")
    if d:
        with open(os.path.join(d, name + ".tmp"), "w") as f:
            f.write(str(value))
        os.rename(os.path.join(d, name + ".tmp"), os.path.join(d, name))


def record(opts, pid, name=None):
    """The stand-in's record of pid, into the record directory (or dir)."""
    sp.record(opts, os.environ.get("CUDA_MODULE_LOADING"), pid, 10.0, False)
    if name:
        d = os.environ["HARNESS_PROBE_DIR"]
        os.rename(os.path.join(d, "%d.rec" % pid), name)


def main(argv):
    opts, i = {"version": "0"}, 1
    flags = {"--fifo-record", "--fifo-output", "--symlink-dir", "--mode-0", "--forge-pid1",
             "--setsid-child", "--hang-main"}
    while i < len(argv):
        a = argv[i]
        if a in flags:
            opts[a[2:].replace("-", "_")] = True
            i += 1
        else:
            opts[a[2:].replace("-", "_")] = argv[i + 1]
            i += 2
    d = os.environ.get("HARNESS_PROBE_DIR")
    probed = d is not None
    print("hostile ran")
    sys.stdout.flush()
    if opts.get("chdir"):
        os.chdir(opts["chdir"])
    if probed and opts.get("fifo_record"):
        os.mkfifo(os.path.join(d, "%d.rec" % os.getpid()))
    if opts.get("fifo_output"):
        out = os.readlink("/proc/self/fd/1")
        os.unlink(out)
        os.mkfifo(out)
    if probed and opts.get("big_record"):
        n = int(opts["big_record"])
        # A record that is whole but for n env fields of its own.
        lines = ["env\trecord\ts\tharness-probe 1", "env\tversion\ts\t%s" % opts["version"],
                 "env\tpid\tn\t%d" % os.getpid()]
        lines += ["env\tf%d\tn\t1" % k for k in range(n)]
        lines.append("end\t%d\t%d" % (os.getpid(), n + 3))
        with open(os.path.join(d, "%d.rec" % os.getpid()), "w") as f:
            f.write("\n".join(lines) + "\n")
    if probed and opts.get("records"):
        kids = []
        for _ in range(int(opts["records"]) - 1):
            pid = os.fork()
            if pid == 0:
                sp.record(opts, os.environ.get("CUDA_MODULE_LOADING"), os.getpid(), 10.0, True)
                time.sleep(1)
                os._exit(0)
            kids.append(pid)
        record(opts, os.getpid())
        for pid in kids:
            os.waitpid(pid, 0)
    if probed and opts.get("symlink_dir"):
        own = os.path.join(os.environ["STANDIN_STATE"], "own-%d" % os.getpid())
        os.mkdir(own)
        record(opts, os.getpid(), os.path.join(own, "%d.rec" % os.getpid()))
        os.rmdir(d)
        os.symlink(own, d)
    if probed and opts.get("mode_0"):
        record(opts, os.getpid())
        os.chmod(d, 0)
    if probed and opts.get("forge_pid1"):
        record(opts, os.getpid())
        sp.record(opts, os.environ.get("CUDA_MODULE_LOADING"), 1, 10.0, False)
    if probed and opts.get("chdir"):
        record(opts, os.getpid())
    if opts.get("setsid_child"):
        pid = os.fork()
        if pid == 0:
            os.setsid()
            state("survivor", os.getpid())
            time.sleep(60)
            os._exit(0)
        while not os.path.exists(os.path.join(os.environ.get("STANDIN_STATE", "/"), "survivor")):
            time.sleep(0.01)
    if opts.get("hang_main"):
        if os.fork() == 0:
            state("hung", os.getpid())
            time.sleep(120)
            os._exit(0)
        state("main", os.getpid())
        time.sleep(120)
    time.sleep(float(opts.get("sleep") or 0))
    return int(opts.get("exit") or 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
