./harness --section=loading --compare-loading --rounds=40 --json=results/h200-compare.json --csv=results/h200-compare.csv
