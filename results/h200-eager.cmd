./harness --section=loading --module-loading=eager --json=results/h200-eager.json --csv=results/h200-eager.csv
