./harness --section=stopwatches --module-loading=lazy --rounds=10 --json=results/h200-stopwatches-lazy.json --csv=results/h200-stopwatches-lazy.csv
