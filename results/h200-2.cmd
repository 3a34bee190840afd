./harness  --json=results/h200-2.json --csv=results/h200-2.csv
