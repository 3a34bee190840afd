./harness --section=loading --module-loading=lazy --json=results/h200-lazy.json --csv=results/h200-lazy.csv
