./harness --section=loading --module=/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3 --compare-loading --rounds=3 --json=results/h200-libraries-libnccl.json --csv=results/h200-libraries-libnccl.csv
