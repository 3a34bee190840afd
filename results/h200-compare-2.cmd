./build/harness --section=loading --compare-loading --json=results/h200-compare-2.json --csv=results/h200-compare-2.csv
