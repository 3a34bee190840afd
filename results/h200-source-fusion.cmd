./harness --section=jit --source=kernels/fusion.cu --nvrtc-option=-lineinfo --rounds=3 --json=results/h200-source-fusion.json --csv=results/h200-source-fusion.csv
