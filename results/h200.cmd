./build/harness  --json=results/h200.json --csv=results/h200.csv
