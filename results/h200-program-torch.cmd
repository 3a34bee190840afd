./harness --compare-loading --json=results/h200-program-torch.json --program-output=OUT/torch-out -- python3 tests/gpu/program/app_torch.py
