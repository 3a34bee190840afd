./build/harness --section=loading --compare-loading --rounds=10 --json=results/h200-compare-2.json --csv=results/h200-compare-2.csv
