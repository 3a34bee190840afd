./harness --section=stopwatches --module-loading=eager --rounds=10 --json=results/h200-stopwatches-eager.json --csv=results/h200-stopwatches-eager.csv
