"""A PyTorch program for -- CMD --snapshot on the GPU (tests/gpu/snapshot.sh).

It allocates --gib GiB of device memory (default 4) in buffers of 256 MiB,
each filled with values known from its index alone (element j of buffer i
is 7 * j + i, int32), warms a few kernels (a matmul, relu, add), prints
its ready line ("snap_torch: listening") and then times its own pause: a
background thread makes a tiny CUDA op and a synchronize every ~1 ms and
keeps the longest gap between two of them (a lock blocks a process's CUDA
calls, so a checkpoint and restore show there as one long gap). Once that
gap is over (or, where no one holds it, after --wait seconds), it serves
one "first request" of kernels it never launched before (sort, softmax,
cumsum, an FFT), checks every buffer against its known values, chunk by
chunk on the device, and prints one JSON line:
  {"snap_torch": 1, "gib", "pause_ms" (the longest gap, its own clock),
   "ticks", "intact" (every buffer equal), "bad" (the buffers that differ),
   "request_ms", "request_ops", "loading"}
and exits 0 (1 where a buffer changed).
"""
import argparse
import json
import os
import sys
import threading
import time

import torch

CHUNK = 1 << 24            # elements compared at a time (64 MiB of int32)
BUF = 256 << 20            # bytes a buffer


class Ticker(threading.Thread):
    """A tiny op and a synchronize every ~1 ms; the longest gap between two
    that returned, and since when the one under way has been in flight."""

    def __init__(self):
        super().__init__(daemon=True)
        self.t = torch.zeros(1, device="cuda")
        self.max_gap = 0.0
        self.ticks = 0
        self.inside = 0.0       # time.monotonic() the op under way began, 0: none
        self.stop = False

    def run(self):
        last = time.monotonic()
        while not self.stop:
            self.inside = time.monotonic()
            self.t.add_(1)
            torch.cuda.synchronize()
            now = time.monotonic()
            self.inside = 0.0
            self.max_gap = max(self.max_gap, now - last)
            self.ticks += 1
            last = now
            time.sleep(0.001)


def fill(n_bufs):
    bufs, elems = [], BUF // 4
    for i in range(n_bufs):
        b = torch.arange(elems, device="cuda", dtype=torch.int32)
        b.mul_(7).add_(i)
        bufs.append(b)
    return bufs


def intact(bufs):
    """The buffers whose values are not 7 * j + i, compared on the device."""
    bad = []
    for i, b in enumerate(bufs):
        for s in range(0, b.numel(), CHUNK):
            e = min(s + CHUNK, b.numel())
            want = torch.arange(s, e, device="cuda", dtype=torch.int32).mul_(7).add_(i)
            if not torch.equal(b[s:e], want):
                bad.append(i)
                break
    return bad


def warm():
    a = torch.ones(1024, 1024, device="cuda")
    (a @ a).relu_().add_(1)
    torch.cuda.synchronize()


def request():
    """Kernels this process never launched before: what stays cold."""
    x = torch.linspace(-1, 1, 1 << 20, device="cuda")
    t0 = time.monotonic()
    s, _ = torch.sort(x.flip(0))
    p = torch.softmax(x.view(1024, -1), dim=1)
    c = torch.cumsum(x, 0)
    f = torch.fft.rfft(x)
    torch.cuda.synchronize()
    ms = (time.monotonic() - t0) * 1e3
    assert s[0].item() <= s[-1].item() and abs(p.sum().item() - 1024) < 1 and c.numel() and f.numel()
    return ms


def wait_pause(tick, wait_s, hold_s):
    """Until a pause of more than hold_s came and ended, or wait_s passed
    with no call held (a side without the snapshot)."""
    end = time.monotonic() + wait_s
    while True:
        now = time.monotonic()
        held = tick.inside and now - tick.inside > hold_s
        if not held and (tick.max_gap > hold_s or now > end):
            return
        time.sleep(0.001)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gib", type=float, default=4.0)
    ap.add_argument("--wait", type=float, default=2.0, help="seconds to wait for a pause")
    ap.add_argument("--hold", type=float, default=0.05, help="a gap longer than this is the pause")
    a = ap.parse_args()
    torch.cuda.init()
    bufs = fill(max(1, int(a.gib * (1 << 30) // BUF)))
    warm()
    tick = Ticker()
    tick.start()
    time.sleep(0.02)
    print("snap_torch: listening", flush=True)
    wait_pause(tick, a.wait, a.hold)
    tick.stop = True
    tick.join()
    pause_ms = tick.max_gap * 1e3
    req_ms = request()
    bad = intact(bufs)
    print(json.dumps({"snap_torch": 1, "gib": a.gib, "buffers": len(bufs), "pause_ms": pause_ms,
                      "ticks": tick.ticks, "intact": not bad, "bad": bad, "request_ms": req_ms,
                      "request_ops": ["sort", "softmax", "cumsum", "fft"],
                      "loading": os.environ.get("CUDA_MODULE_LOADING")}), flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
