"""A small PyTorch program for -- CMD on the GPU: a 4096x4096 randn, one
matmul, gelu, softmax, synchronize; it prints, as one JSON line, what torch
itself says: CLOCK_MONOTONIC (time.monotonic_ns) before its first CUDA call,
after the first kernel's synchronize and at the end, and the device memory
in use (torch.cuda.mem_get_info: the whole device) after the first kernel
and at the end.

--fail-after-cuda SIG  kill itself with SIG after the first kernel
--forge-record         overwrite its own record with garbage, then os._exit
--worker               also run the same work in a second process (spawn)
"""
import json
import os
import signal
import sys
import time


def work(tag):
    import torch
    out = {"tag": tag, "pid": os.getpid(), "t_start_ns": time.monotonic_ns()}
    torch.cuda.init()
    out["t_init_ns"] = time.monotonic_ns()
    x = torch.randn(4096, 4096, device="cuda")
    torch.cuda.synchronize()
    out["t_first_kernel_done_ns"] = time.monotonic_ns()
    free, total = torch.cuda.mem_get_info()
    out["used_first_mib"] = (total - free) / 2**20
    y = torch.softmax(torch.nn.functional.gelu(x @ x), dim=-1)
    torch.cuda.synchronize()
    free, total = torch.cuda.mem_get_info()
    out["used_end_mib"] = (total - free) / 2**20
    out["reserved_mib"] = torch.cuda.memory_reserved() / 2**20
    out["checksum"] = float(y.sum().item())
    out["t_end_ns"] = time.monotonic_ns()
    out["loading"] = os.environ.get("CUDA_MODULE_LOADING")
    out["t0_ns"] = os.environ.get("HARNESS_PROBE_T0_NS")
    print(json.dumps(out), flush=True)
    return out


def worker_main():
    work("worker")


if __name__ == "__main__":
    args = sys.argv[1:]
    t0 = time.monotonic_ns()
    out = work("main")
    if "--fail-after-cuda" in args:
        os.kill(os.getpid(), getattr(signal, args[args.index("--fail-after-cuda") + 1]))
    if "--forge-record" in args and os.environ.get("HARNESS_PROBE_DIR"):
        with open(os.path.join(os.environ["HARNESS_PROBE_DIR"], "%d.rec" % os.getpid()), "w") as f:
            f.write("env\trecord\ts\tharness-probe 1\nm\tprogram\tat.exit\tx\tx\tprocess\tms\t1\t0\t0\t0\t-5\t0\t0\t0\t\n")
        os._exit(0)
    if "--worker" in args:
        import multiprocessing as mp
        ctx = mp.get_context("spawn")
        p = ctx.Process(target=worker_main)
        p.start()
        p.join()
        sys.exit(p.exitcode)
