#!/usr/bin/env python3
"""A stand-in for Nsight Compute's ncu, for the CPU test of scripts/ncu-bytes.

Called as ncu-bytes calls ncu (ncu --csv --page raw ... --metrics M CMD...),
it runs CMD, the harness, on the stand-in driver (HARNESS_LIBCUDA=$FAKECUDA),
then prints a raw CSV page as ncu does: a header, a units row, and for each
kernel below two instances, a small grid and a large one, with made-up DRAM
counters (read 4, 5 or 6 bytes per element of the main n, written 3 and a
little). Standard library only."""

import os
import subprocess
import sys

MAIN_N = 16777216
KERNELS = ("chainFused", "chainFusedWide<16>", "chainFusedWide<1>", "copyFloat", "copyFloat4",
           "pairResidualClamp", "pairScaleGelu", "stageAddResidual", "stageClamp", "stageGelu",
           "stageScaleBias", "someOther")


def main(argv):
    cmd = argv[argv.index("--metrics") + 2:]
    env = dict(os.environ, HARNESS_LIBCUDA=os.environ["FAKECUDA"])
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print('"ID","Kernel Name","dram__bytes_read.sum","dram__bytes_write.sum",'
          '"launch__grid_size","launch__block_size"')
    print('"","","byte","byte","",""')
    for j, k in enumerate(KERNELS):
        for grid in (1024, 65536 >> (j % 3)):
            print('"%d","void %s(float*, int)","%s","%d","%d","256"'
                  % (j, k, "{:,}".format(MAIN_N * (4 + j % 3)), MAIN_N * 3 + j * 1000, grid))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
