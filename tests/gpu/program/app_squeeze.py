"""A PyTorch program for --squeeze on the GPU (tests/gpu/squeeze.sh). It does
not take the device's memory itself: the harness's holder leaves it a margin.
It makes a small tensor, then calls torch.linalg.qr and torch.fft.fft for the
first time (torch opens cuSOLVER and cuFFT at their first use; under EAGER
the driver then loads all of their modules), and synchronizes after each.
Each step that finishes prints one JSON line: its name, the device memory
free before it (torch.cuda.mem_get_info) and its time. A step that fails
(torch's OutOfMemoryError, a cuSOLVER error) ends the program with its
traceback and exit 1; the last line it printed says how far it got.
"""
import json
import os
import time

import torch


def step(name, fn):
    free, _ = torch.cuda.mem_get_info()
    t = time.monotonic()
    out = fn()
    torch.cuda.synchronize()
    print(json.dumps({"step": name, "free_mib_before": round(free / 2**20, 1),
                      "ms": round((time.monotonic() - t) * 1e3, 2),
                      "loading": os.environ.get("CUDA_MODULE_LOADING")}), flush=True)
    return out


def main():
    a = step("small tensor", lambda: torch.randn(256, 256, device="cuda"))
    step("linalg.qr, its first use", lambda: torch.linalg.qr(a))
    step("fft.fft, its first use", lambda: torch.fft.fft(a))
    print(json.dumps({"done": True}), flush=True)


if __name__ == "__main__":
    main()
