./harness --section=launch,fusion --json=results/h200-launch-fusion-2.json --csv=results/h200-launch-fusion-2.csv
