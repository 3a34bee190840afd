./harness --trace=results/h200.trace.json --json=results/h200.json --csv=results/h200.csv
