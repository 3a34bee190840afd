./harness --section=loading --compare-loading --rounds=40 --json=results/h200-compare-2.json --csv=results/h200-compare-2.csv
