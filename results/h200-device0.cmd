./harness --device=0 --json=results/h200-device0.json --csv=results/h200-device0.csv
