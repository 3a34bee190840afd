./harness --compare-loading --json=results/h200-program-vector.json -- ./vector   # nvcc -O2 -arch=sm_90 -o vector tests/gpu/program/vector.cu
