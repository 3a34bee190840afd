./harness --section=loading --module=/usr/local/cuda/lib64/libcublasLt.so.13 --compare-loading --json=results/h200-compare-cublasLt-default.json --csv=results/h200-compare-cublasLt-default.csv
