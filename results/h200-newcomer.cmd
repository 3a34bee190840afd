tests/gpu/run.sh newcomer: a fresh copy less build outputs; env -i PATH HOME sh -c 'make && ./harness', then env -i PATH HOME make test
