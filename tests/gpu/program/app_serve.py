"""A serving-style PyTorch program for -- CMD's first uses after ready: it
warms up one matmul, prints READY, then serves five requests, each of
which uses kernels it has not used before (linalg.qr, fft, sort, cumsum,
conv2d), each request twice. It times every request itself (host clock
around the work and a synchronize) and prints them as one JSON line:
{"first_ms": [...], "second_ms": [...]}. Just before READY it makes the
NVTX mark "ready-mark" (torch.cuda.nvtx.mark).

--preload   run each request's work once before READY: the kernels are
            loaded before the program says it is ready
"""
import json
import sys
import time

import torch


def requests(dev):
    a = torch.randn(256, 256, device=dev)
    s = torch.randn(1 << 20, device=dev)
    img = torch.randn(8, 16, 64, 64, device=dev)
    w = torch.randn(32, 16, 3, 3, device=dev)
    return [
        lambda: torch.linalg.qr(a),
        lambda: torch.fft.fft(s),
        lambda: torch.sort(s),
        lambda: torch.cumsum(s, 0),
        lambda: torch.nn.functional.conv2d(img, w),
    ]


def timed(f):
    t = time.perf_counter()
    f()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) * 1e3


def main():
    dev = "cuda"
    x = torch.randn(1024, 1024, device=dev)
    (x @ x).sum().item()
    reqs = requests(dev)
    if "--preload" in sys.argv:
        for f in reqs:
            f()
        torch.cuda.synchronize()
    torch.cuda.nvtx.mark("ready-mark")     # --ready='^ready-mark$' matches this NVTX mark alone
    print("READY", flush=True)
    first = [timed(f) for f in reqs]
    second = [timed(f) for f in reqs]
    print(json.dumps({"first_ms": first, "second_ms": second}), flush=True)


if __name__ == "__main__":
    main()
