./harness --device=all --json=results/h200-node.json --csv=results/h200-node.csv
