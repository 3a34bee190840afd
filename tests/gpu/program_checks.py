#!/usr/bin/env python3
"""program_checks.py JSON OUTDIR BASELINE_MIB: the harness's figures of a
-- CMD run of app_torch.py against what torch said inside each run (the
JSON lines its runs printed, kept in OUTDIR): per probed run, the first
kernel's moment inside [the app's start, its first kernel's synchronize],
and the device memory at the first kernel (NVML, this process) against
torch's mem_get_info (the whole device) less the device's baseline.
Prints one PASSED/FAILED line per check and a table of the pairs."""
import glob
import json
import os
import sys


def main(path, outdir, baseline):
    d = json.load(open(path))
    meas = {m["key"]: m for m in d["measurements"] if m["section"] == "program"}
    ok = True
    for side in ("lazy", "eager", "default"):
        fk = meas.get(side + ".at.first_kernel")
        mem = meas.get(side + ".mem.first_kernel")
        if not fk:
            continue
        runs = []
        for f in sorted(glob.glob(os.path.join(outdir, "run*-%s.out" % side))):
            for line in open(f):
                if line.startswith("{"):
                    j = json.loads(line)
                    if j.get("tag") == "main" and j.get("t0_ns"):
                        runs.append(j)
        n = min(len(runs), len(fk["samples"]))
        inside = 0
        print("%s: run  app start  harness first kernel  app first kernel done   (ms after spawn)" % side)
        for i in range(n):
            t0 = int(runs[i]["t0_ns"])
            a = (runs[i]["t_start_ns"] - t0) / 1e6
            b = (runs[i]["t_first_kernel_done_ns"] - t0) / 1e6
            h = fk["samples"][i]
            inside += a <= h <= b
            print("%s: %3d %10.1f %20.1f %22.1f" % (side, i + 1, a, h, b))
        good = n > 0 and inside == n
        ok &= good
        print("%s %s: the first kernel inside torch's own window in %d of %d runs" %
              ("PASSED" if good else "FAILED", side, inside, n))
        if mem:
            pairs = [(mem["samples"][i], runs[i]["used_first_mib"] - baseline) for i in range(min(n, len(mem["samples"])))]
            for h, t in pairs:
                print("%s: memory at the first kernel: harness %.0f MiB, torch %.0f MiB (device-wide less %.0f)" %
                      (side, h, t, baseline))
            good = pairs and all(abs(h - t) <= max(32, 0.05 * t) for h, t in pairs)
            ok &= bool(good)
            print("%s %s: memory at the first kernel within 32 MiB or 5%% of torch's" %
                  ("PASSED" if good else "FAILED", side))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], float(sys.argv[3])))
