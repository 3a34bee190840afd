./harness --module-loading=lazy --rounds=10 -- ./vector
HARNESS_PROBE_ONLY_SUBSCRIBE=1 ./harness --module-loading=lazy --rounds=10 -- ./vector
