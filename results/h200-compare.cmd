./build/harness --section=loading --compare-loading --rounds=20 --json=results/h200-compare.json --csv=results/h200-compare.csv
