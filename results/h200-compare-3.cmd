./harness --section=loading --compare-loading --rounds=40 --json=results/h200-compare-3.json --csv=results/h200-compare-3.csv
