./harness --section=launch,fusion --json=results/h200-launch-fusion-1.json --csv=results/h200-launch-fusion-1.csv
