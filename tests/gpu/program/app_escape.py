"""A PyTorch program that tries to escape -- CMD, for tests/gpu/program_trust.sh.

--setsid-grandchild DIR  fork a child that calls setsid and starts a grandchild;
                         the grandchild runs a CUDA kernel (torch), writes its
                         pid to DIR/grandchild, then sleeps 600 s; the main
                         process removes that file first, waits for it to be
                         written again, and exits 0
--hang DIR               the same, then the main process sleeps 600 s too
                         (its pid in DIR/main)
--own-injection          re-execute itself with CUDA_INJECTION64_PATH and the
                         harness's HARNESS_PROBE_* variables removed, then use
                         the GPU (about 600 MiB) and exit 0
--sleep S                run a kernel, then sleep S seconds and exit 0
"""
import os
import sys
import time


def kernel(mib=64):
    import torch
    n = int((mib * 2**20 / 4) ** 0.5)
    x = torch.randn(n, n, device="cuda")
    y = (x @ x).sum()
    torch.cuda.synchronize()
    return float(y.item())


def put(d, name, value):
    with open(os.path.join(d, name + ".tmp"), "w") as f:
        f.write(str(value))
    os.rename(os.path.join(d, name + ".tmp"), os.path.join(d, name))


def escape(d, hang):
    # This run's grandchild's pid, not the one a run before it left (the
    # harness runs the program several times with one DIR).
    for name in ("grandchild", "main"):
        if os.path.exists(os.path.join(d, name)):
            os.remove(os.path.join(d, name))
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            kernel()
            put(d, "grandchild", os.getpid())
            time.sleep(600)
            os._exit(0)
        os._exit(0)
    while not os.path.exists(os.path.join(d, "grandchild")):
        time.sleep(0.05)
    if hang:
        put(d, "main", os.getpid())
        time.sleep(600)


if __name__ == "__main__":
    a = sys.argv[1:]
    if "--setsid-grandchild" in a:
        escape(a[a.index("--setsid-grandchild") + 1], False)
    elif "--hang" in a:
        escape(a[a.index("--hang") + 1], True)
    elif "--own-injection" in a:
        if os.environ.get("CUDA_INJECTION64_PATH"):
            env = {k: v for k, v in os.environ.items()
                   if k != "CUDA_INJECTION64_PATH" and not k.startswith("HARNESS_PROBE")}
            os.execve(sys.executable, [sys.executable] + sys.argv, env)
        kernel(600)
        time.sleep(1)
    elif "--sleep" in a:
        kernel()
        time.sleep(float(a[a.index("--sleep") + 1]))
