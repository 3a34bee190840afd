./build/harness --section=loading --compare-loading --rounds=20 --json=results/h200-compare-2.json --csv=results/h200-compare-2.csv
