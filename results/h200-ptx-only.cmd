./harness --section=loading --module=/tmp/tmp.vfNSjmObwv/fusion-ptx.fatbin --rounds=3 --json=results/h200-ptx-only.json --csv=results/h200-ptx-only.csv
