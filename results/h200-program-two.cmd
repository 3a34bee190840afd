./harness --module-loading=lazy --rounds=3 --json=results/h200-program-two.json -- python3 tests/gpu/program/app_torch.py --worker
