./harness --module-loading=lazy --rounds=10 --json=results/h200-program-cost.json -- python3 tests/gpu/program/app_torch.py
