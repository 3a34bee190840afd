./build/harness --section=loading --compare-loading --json=results/h200-compare.json --csv=results/h200-compare.csv
